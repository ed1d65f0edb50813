// Which shipped language a request gets: the person's saved choice, else the best match for the browser's
// Accept-Language (RFC 9110 §12.5.4, q-values honoured, `de-CH` served by `de`), else the organization's default.
import Negotiator from 'negotiator';
import { isLocale, LOCALES, type Locale } from './locales.ts';

export function negotiateLocale(input: {
  saved: string | null;
  acceptLanguage: string | undefined;
  fallback: Locale;
}): Locale {
  if (isLocale(input.saved)) return input.saved;
  const header = input.acceptLanguage?.trim();
  if (!header) return input.fallback;
  // negotiator answers in preference order, only languages from the list, each matched by full tag or prefix. Ties
  // (and `*`) go to the earlier entry of the list, so the organization's default comes first.
  const offered = [input.fallback, ...LOCALES.filter((l) => l !== input.fallback)];
  const [best] = new Negotiator({ headers: { 'accept-language': header } }).languages(offered);
  return isLocale(best) ? best : input.fallback;
}
