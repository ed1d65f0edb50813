// Server-rendered HTML pages (protocol error pages, consent, logout, federated sign-in outcomes). They link the web
// UI's stylesheets and carry the organization's header; no script, no inline style, so the CSP stays strict.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type Locale, textDirection } from '../i18n/locales.ts';
import { type LocaleOf, type Translate, translator } from '../i18n/translate.ts';

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export interface HtmlPage {
  title: string;
  body: string;
  /**
   * Where a form on the page may end up. CSP `form-action` also governs the redirects that follow a form
   * submission (CSP Level 3 §6.3.1), so the consent and logout forms, which POST to us and are answered with a 303
   * to the client, need the client's origin besides 'self'.
   */
  formTargets?: string[];
}

/** A CSP source for where a redirect URI lives: its origin, or its scheme for a private-use scheme (RFC 8252 §7.1). */
function cspSource(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? url.protocol : null;
}

export function pageCsp(formTargets: string[] = []): string {
  const targets = [...new Set(formTargets.map(cspSource).filter((s) => s !== null))];
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    ['form-action', "'self'", ...targets].join(' '),
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What every hosted page shares: the UI's stylesheets and the organization's header (web/branding.ts). */
export interface PageShell {
  /** Local paths of the stylesheets to link. */
  stylesheets: string[];
  /** The brand header, already HTML. */
  header: string;
  /** Shown after each page title in the browser's tab. */
  siteName: string;
  /** The language each request is answered in (src/i18n/request-locale.ts). */
  localeOf: LocaleOf;
}

/** A page in the request's language: built from the translator the shell picks. */
export type PageIn = (t: Translate) => HtmlPage;

const render = (page: HtmlPage, shell: PageShell, locale: Locale) =>
  `<!doctype html><html lang="${locale}" dir="${textDirection(locale)}"><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width, initial-scale=1">` +
  // No favicon request (it would be a 404 on every page): the UI's index.html says the same.
  `<link rel="icon" href="data:,">` +
  `<title>${escapeHtml(page.title)} · ${escapeHtml(shell.siteName)}</title>` +
  shell.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('') +
  `</head><body>${shell.header}<main class="page"><h1>${escapeHtml(page.title)}</h1>${page.body}</main></body></html>`;

export async function sendPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  pageIn: PageIn,
  shell: PageShell,
) {
  const locale = await shell.localeOf(request);
  const page = pageIn(translator(locale));
  return reply
    .code(status)
    .header('content-security-policy', pageCsp(page.formTargets))
    .header('cache-control', 'no-store')
    .header('content-language', locale)
    .type('text/html; charset=utf-8')
    .send(render(page, shell, locale));
}

/** Markup handed into a message: inserted as is, after the message's own text was escaped. */
export interface Markup {
  html: string;
}

/**
 * A translated message as HTML: its words escaped, with markup (a <strong> name, a <code> value, a button) in the
 * places its placeholders mark. Each piece of markup stands in the message as a private-use marker first, so the
 * translator's text and the values are escaped and the markup is not.
 */
export function htmlMessage(
  t: Translate,
  key: Parameters<Translate>[0],
  values: Record<string, string | number | Markup> = {},
): string {
  const markup: string[] = [];
  const plain: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(values)) {
    if (typeof value === 'object') {
      plain[name] = `\u{E000}${markup.length}\u{E001}`;
      markup.push(value.html);
    } else plain[name] = value;
  }
  return escapeHtml(t(key, plain)).replace(/\u{E000}(\d+)\u{E001}/gu, (_m, i: string) => markup[Number(i)] ?? '');
}

const code = (value: string) => ({ html: `<code>${escapeHtml(value)}</code>` });

/** The code and request id an operator needs, under an error's description on every error page. */
export const errorDetails = (t: Translate, errorCode: string, requestId: string) =>
  `<p class="request-id">${htmlMessage(t, 'error.code', { code: code(errorCode) })}</p>` +
  `<p class="request-id">${htmlMessage(t, 'error.requestId', { id: code(requestId) })}</p>`;
