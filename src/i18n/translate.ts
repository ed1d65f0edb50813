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

const compiled = new Map<string, IntlMessageFormat>();

function format(locale: Locale, key: MessageKey, values: MessageValues | undefined): string {
  const id = `${locale}\u0000${key}`;
  let message = compiled.get(id);
  if (!message) {
    // A key missing in a language falls back to English; the catalogue test keeps that from shipping.
    message = new IntlMessageFormat(SERVER_CATALOGUES[locale][key] ?? en[key], locale, undefined, {
      ignoreTag: true,
    });
    compiled.set(id, message);
  }
  return String(message.format(values));
}

export const translator =
  (locale: Locale): Translate =>
  (key, values) =>
    format(locale, key, values);
