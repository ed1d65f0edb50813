// The few HTML pages the protocol renders on the server: an error page (never a redirect to an unverified URI), the
// consent page and the logout pages. They link the web UI's stylesheet; no script, no inline style.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatehouseError } from '../http/errors.ts';
import { escapeHtml, type HtmlPage, type PageShell, sendPage } from '../http/html-page.ts';

export { type HtmlPage, type PageShell, pageCsp, sendPage } from '../http/html-page.ts';

const ERROR_TITLES = {
  'sign-in': 'This sign-in request cannot continue',
  'sign-out': 'This sign-out request cannot continue',
} as const;

export function errorPage(
  code: string,
  description: string,
  requestId: string,
  flow: keyof typeof ERROR_TITLES,
): HtmlPage {
  return {
    title: ERROR_TITLES[flow],
    body:
      `<div class="notice notice-error" role="alert"><p>${escapeHtml(description)}</p>` +
      `<p class="request-id">Error: <code>${escapeHtml(code)}</code></p>` +
      `<p class="request-id">Request ID: <code>${escapeHtml(requestId)}</code></p></div>` +
      '<p>Go back to the application and start again. If this keeps happening, tell its operator the request ID.</p>',
  };
}

/** The error page as a 400 answer; its code goes to the request's log line, as an error envelope's does. */
export function sendErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  error: GatehouseError,
  shell: PageShell,
  flow: keyof typeof ERROR_TITLES,
) {
  request.errorCode = error.code;
  return sendPage(reply, 400, errorPage(error.code, error.publicDescription, request.id, flow), shell);
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
