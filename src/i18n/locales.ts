// The languages Gatehouse's hosted pages and messages are written in. A leaf module: the config schema, the server's
// negotiation and the web UI all read this one list, so a locale is either complete everywhere or absent.

export const LOCALES = ['en', 'de', 'fr', 'es', 'ja', 'ar'] as const;

export type Locale = (typeof LOCALES)[number];

export const DEFAULT_LOCALE: Locale = 'en';

export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/** Scripts written right to left; the page's `dir` attribute follows this (HTML §3.2.6.4). */
const RIGHT_TO_LEFT: ReadonlySet<Locale> = new Set(['ar']);

export const textDirection = (locale: Locale): 'ltr' | 'rtl' => (RIGHT_TO_LEFT.has(locale) ? 'rtl' : 'ltr');

/** Each language by its own name, as a language picker shows it (a person looks for the name they can read). */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  ja: '日本語',
  ar: 'العربية',
};
