// The few HTML pages the protocol renders on the server: an error page (never a redirect to an unverified URI), the
// consent page and the logout pages. They link the web UI's stylesheet; no script, no inline style.
import type { FastifyReply } from 'fastify';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

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
}

const render = (page: HtmlPage, shell: PageShell) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
  `<meta name="viewport" content="width=device-width, initial-scale=1">` +
  // No favicon request (it would be a 404 on every page): the UI's index.html says the same.
  `<link rel="icon" href="data:,">` +
  `<title>${escapeHtml(page.title)} · ${escapeHtml(shell.siteName)}</title>` +
  shell.stylesheets.map((href) => `<link rel="stylesheet" href="${escapeHtml(href)}">`).join('') +
  `</head><body>${shell.header}<main class="page"><h1>${escapeHtml(page.title)}</h1>${page.body}</main></body></html>`;

export function sendPage(reply: FastifyReply, status: number, page: HtmlPage, shell: PageShell) {
  return reply
    .code(status)
    .header('content-security-policy', pageCsp(page.formTargets))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(render(page, shell));
}

export function errorPage(code: string, description: string, requestId: string): HtmlPage {
  return {
    title: 'This sign-in request cannot continue',
    body:
      `<div class="notice notice-error" role="alert"><p>${escapeHtml(description)}</p>` +
      `<p class="request-id">Error: <code>${escapeHtml(code)}</code></p>` +
      `<p class="request-id">Request ID: <code>${escapeHtml(requestId)}</code></p></div>` +
      '<p>Go back to the application and start again. If this keeps happening, tell its operator the request ID.</p>',
  };
}

const SCOPE_WORDS: Record<string, string> = {
  openid: 'Know who you are (your account identifier)',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Stay signed in and act for you while you are away',
};

/** A scope in plain words: ours by name, a resource's as "Use <resource name>: <scope>", else the raw scope. */
export function scopeWords(scope: string, resourceNames: readonly string[]): string {
  const known = SCOPE_WORDS[scope];
  if (known) return known;
  return resourceNames.length > 0 ? `Use ${resourceNames.join(', ')}: ${scope}` : scope;
}

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');

export interface ConsentInput {
  clientName: string;
  account: { name: string; email: string | null };
  scopes: string[];
  /** Names of the registered resources that define each non-OIDC scope. */
  resourceNames: Record<string, string[]>;
  /** Where both answers (allow and deny) are redirected. */
  redirectUri: string;
  fields: Record<string, string>;
}

export function consentPage(input: ConsentInput): HtmlPage {
  const items = input.scopes.map((s) => `<li>${escapeHtml(scopeWords(s, input.resourceNames[s] ?? []))}</li>`).join('');
  const who = [input.account.name, input.account.email].filter(Boolean).map((v) => escapeHtml(v ?? ''));
  return {
    title: `${input.clientName} wants to access your account`,
    body:
      `<form method="post" action="/oauth/authorize/switch-account" class="account-switch">${hidden(input.fields)}` +
      `<p>Signed in as <strong>${who[0] ?? ''}</strong>${who[1] ? ` (${who[1]})` : ''}. ` +
      `Not you? <button type="submit" class="link">Use another account</button></p></form>` +
      `<p>${escapeHtml(input.clientName)} asks to:</p><ul>${items}</ul>` +
      `<form method="post" action="/oauth/authorize/consent">${hidden(input.fields)}` +
      `<button type="submit" name="decision" value="allow">Allow</button> ` +
      `<button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`,
    formTargets: [input.redirectUri],
  };
}

export function logoutConfirmPage(fields: Record<string, string>, redirectTo: string | null): HtmlPage {
  return {
    title: 'Sign out?',
    body: `<form method="post" action="/oauth/logout">${hidden(fields)}<button type="submit">Sign out</button></form>`,
    formTargets: redirectTo ? [redirectTo] : [],
  };
}

export const signedOutPage = (): HtmlPage => ({
  title: 'You are signed out',
  body: '<p>You can close this window.</p>',
});
