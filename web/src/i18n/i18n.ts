// The hosted pages' words in the page's language. The server picks the language (saved choice, Accept-Language,
// organization default: src/i18n/request-locale.ts) and writes it into <html lang>; main.tsx loads that catalogue
// before the first render. English is bundled (it is the fallback and the source of the message keys' type); every
// other language is its own chunk, fetched only by the pages that need it.
import { IntlMessageFormat } from 'intl-messageformat';
import { type ComponentChildren, Fragment, h, type VNode } from 'preact';
import { isLocale, type Locale } from '../../../src/i18n/locales.ts';
import en from './messages/en.json';

export type MessageKey = keyof typeof en;
type Catalogue = Record<MessageKey, string>;

const LOADERS: Record<Exclude<Locale, 'en'>, () => Promise<{ default: Catalogue }>> = {
  de: () => import('./messages/de.json'),
  fr: () => import('./messages/fr.json'),
  es: () => import('./messages/es.json'),
  ja: () => import('./messages/ja.json'),
  ar: () => import('./messages/ar.json'),
};

let locale: Locale = 'en';
let messages: Catalogue = en;
const compiled = new Map<MessageKey, IntlMessageFormat>();

/** Loads the catalogue of the language the server chose for this page (<html lang>); English if none matches. */
export async function loadLanguage(): Promise<void> {
  const lang = document.documentElement.lang;
  if (!isLocale(lang) || lang === 'en') return;
  messages = (await LOADERS[lang]()).default;
  locale = lang;
  compiled.clear();
}

/** The page's language, for dates and numbers (Intl formatters) and for the language picker. */
export const pageLocale = (): Locale => locale;

function message(key: MessageKey): IntlMessageFormat {
  let found = compiled.get(key);
  if (!found) {
    found = new IntlMessageFormat(messages[key] ?? en[key], locale);
    compiled.set(key, found);
  }
  return found;
}

export type Values = Record<string, string | number>;

/** A message as text: ICU placeholders, plurals and selects filled from `values`. */
export const t = (key: MessageKey, values?: Values): string => String(message(key).format(values));

/** Rich values: text, elements, and tags of the message (`<b>…</b>`) mapped to elements. */
export type RichValues = Record<string, string | number | VNode | ((chunks: ComponentChildren[]) => VNode)>;

/** A message with elements in it: a name in <strong>, a link around words the translation places. */
export function tx(key: MessageKey, values: RichValues): VNode {
  const parts = message(key).format<ComponentChildren>(values);
  return h(Fragment, null, ...(Array.isArray(parts) ? parts : [parts]));
}

/** Date and time in the page's language. */
export const dateTime = (iso: string) => new Date(iso).toLocaleString(locale);
export const date = (iso: string) => new Date(iso).toLocaleDateString(locale);
