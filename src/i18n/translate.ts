// The server's messages (server-rendered pages and mails) in each shipped language: ICU MessageFormat strings
// (plural and select included) formatted by intl-messageformat. The web UI has its own catalogues
// (web/src/i18n/); src/i18n/catalogues.test.ts checks both against English, key by key and placeholder by placeholder.
import type { FastifyRequest } from 'fastify';
import { IntlMessageFormat } from 'intl-messageformat';
import type { Locale } from './locales.ts';
import ar from './messages/ar.json' with { type: 'json' };
import de from './messages/de.json' with { type: 'json' };
import en from './messages/en.json' with { type: 'json' };
import es from './messages/es.json' with { type: 'json' };
import fr from './messages/fr.json' with { type: 'json' };
import ja from './messages/ja.json' with { type: 'json' };

export type MessageKey = keyof typeof en;
export type MessageValues = Record<string, string | number>;
export type Translate = (key: MessageKey, values?: MessageValues) => string;

/** The language a request is answered in (request-locale.ts builds it; routes receive it from app.ts). */
export type LocaleOf = (request: FastifyRequest) => Promise<Locale>;

export const SERVER_CATALOGUES: Record<Locale, Record<string, string>> = { en, de, fr, es, ja, ar };

const compiled = new Map<string, IntlMessageFormat | string>();

/**
 * A message with no argument, no brace and no apostrophe (MessageFormat's quote character) reads as its own text, so
 * it is answered without a formatter. That keeps ICU's locale data out of a process until a message needs it: the
 * pages built at startup (web/localized-index.ts) took about 4.5 MB of it into every worker's RSS.
 */
const isPlainText = (text: string) => !/[{}']/.test(text);

function format(locale: Locale, key: MessageKey, values: MessageValues | undefined): string {
  const id = `${locale}\u0000${key}`;
  let message = compiled.get(id);
  if (message === undefined) {
    // A key missing in a language falls back to English; the catalogue test keeps that from shipping.
    const text = SERVER_CATALOGUES[locale][key] ?? en[key];
    message = isPlainText(text) ? text : new IntlMessageFormat(text, locale, undefined, { ignoreTag: true });
    compiled.set(id, message);
  }
  return typeof message === 'string' ? message : String(message.format(values));
}

export const translator =
  (locale: Locale): Translate =>
  (key, values) =>
    format(locale, key, values);
