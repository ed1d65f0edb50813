// An unknown address: a person who typed or followed it in a browser gets the UI's "Page not found" page (HTML, 404,
// with links back), an API client the JSON envelope. The path decides first: under an API prefix it is always JSON,
// so a script never has to parse HTML; elsewhere a navigation (Accept names text/html, as browsers send for pages)
// gets the page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LocaleOf } from '../i18n/translate.ts';
import { isConsolePath, type PageFor } from './localized-index.ts';
import { PAGE_CSP } from './pages.ts';

/** Paths that belong to an API, never to a page (the console's pages live under /admin/console). */
const API_PREFIXES = ['/oauth', '/account', '/auth', '/health', '/.well-known', '/assets', '/branding', '/metrics'];

export function isApiPath(path: string): boolean {
  if (path === '/admin/console' || path.startsWith('/admin/console/')) return false;
  if (path === '/admin' || path.startsWith('/admin/')) return true;
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** True for a browser navigation to a non-API path. */
export function wantsHtmlPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  const path = request.url.split('?')[0] ?? '/';
  return !isApiPath(path) && /\btext\/html\b/.test(request.headers.accept ?? '');
}

/** The not-found answer for the http plugin; the UI's router shows its "Page not found" page at any unknown path. */
export function htmlNotFound(pageFor: PageFor, localeOf: LocaleOf) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | null> => {
    if (!wantsHtmlPage(request)) return null;
    const path = request.url.split('?')[0] ?? '/';
    const html = pageFor(isConsolePath(path) ? 'en' : await localeOf(request));
    if (html === null) return null;
    return reply
      .code(404)
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(html);
  };
}
