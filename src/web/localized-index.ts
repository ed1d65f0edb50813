// The UI's index.html once per shipped language: `lang` and `dir` on <html> (the UI reads its language from there
// and loads that catalogue before its first render) and the <noscript> sentence in that language. Built once at
// startup; a page request only picks one.
import { LOCALES, type Locale, textDirection } from '../i18n/locales.ts';
import { translator } from '../i18n/translate.ts';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export type PageFor = (locale: Locale) => string | null;

export function localizedIndex(page: string | null): PageFor {
  if (page === null) return () => null;
  const pages = new Map<Locale, string>();
  for (const locale of LOCALES) {
    pages.set(
      locale,
      page
        .replace('<html lang="en">', `<html lang="${locale}" dir="${textDirection(locale)}">`)
        .replace(
          /<noscript>[^<]*<\/noscript>/,
          `<noscript>${escapeHtml(translator(locale)('page.noscript'))}</noscript>`,
        ),
    );
  }
  return (locale) => pages.get(locale) ?? null;
}

/** The administration console stays in English (docs/decisions.md, "Languages"). */
export const isConsolePath = (path: string) => path === '/admin/console' || path.startsWith('/admin/console/');
