// The few HTML pages the protocol renders on the server: an error page (never a redirect to an unverified URI), the
// consent page and the logout pages. They link the web UI's stylesheet; no script, no inline style.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatehouseError } from '../http/errors.ts';
import { errorDetails, escapeHtml, htmlMessage, type PageIn, type PageShell, sendPage } from '../http/html-page.ts';
import { type Translate, translator } from '../i18n/translate.ts';

export { type HtmlPage, type PageIn, type PageShell, pageCsp, sendPage } from '../http/html-page.ts';

const ERROR_TITLES = {
  'sign-in': 'error.signInTitle',
  'sign-out': 'error.signOutTitle',
} as const;

export const errorPage =
  (errorCode: string, description: string, requestId: string, flow: keyof typeof ERROR_TITLES): PageIn =>
  (t) => ({
    title: t(ERROR_TITLES[flow]),
    body:
      `<div class="notice notice-error" role="alert"><p>${escapeHtml(description)}</p>` +
      `${errorDetails(t, errorCode, requestId)}</div>` +
      `<p>${escapeHtml(t('error.startAgain'))}</p>`,
  });

/** The error page as a 400 answer; its code goes to the request's log line, as an error envelope's does. */
export function sendErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  error: GatehouseError,
  shell: PageShell,
  flow: keyof typeof ERROR_TITLES,
) {
  request.errorCode = error.code;
  return sendPage(request, reply, 400, errorPage(error.code, error.publicDescription, request.id, flow), shell);
}

const SCOPE_WORDS = {
  openid: 'scope.openid',
  profile: 'scope.profile',
  email: 'scope.email',
  offline_access: 'scope.offline_access',
} as const;

const isNamedScope = (scope: string): scope is keyof typeof SCOPE_WORDS => Object.hasOwn(SCOPE_WORDS, scope);

/**
 * A scope in plain words: ours by name, a resource's as "Use <resource name>: <scope>", else the raw scope. The
 * account API's lists say it in English (`t` defaults to it); the consent page in the person's language.
 */
export function scopeWords(scope: string, resourceNames: readonly string[], t: Translate = translator('en')): string {
  if (isNamedScope(scope)) return t(SCOPE_WORDS[scope]);
  return resourceNames.length > 0 ? t('scope.resource', { resources: resourceNames.join(', '), scope }) : scope;
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

export const consentPage =
  (input: ConsentInput): PageIn =>
  (t) => {
    const items = input.scopes
      .map((s) => `<li>${escapeHtml(scopeWords(s, input.resourceNames[s] ?? [], t))}</li>`)
      .join('');
    const name = { html: `<strong>${escapeHtml(input.account.name)}</strong>` };
    const signedInAs = input.account.email
      ? htmlMessage(t, 'consent.signedInAsWithEmail', { name, email: input.account.email })
      : htmlMessage(t, 'consent.signedInAs', { name });
    return {
      title: t('consent.title', { client: input.clientName }),
      body:
        `<form method="post" action="/oauth/authorize/switch-account" class="account-switch">${hidden(input.fields)}` +
        `<p>${signedInAs} ${escapeHtml(t('consent.notYou'))} ` +
        `<button type="submit" class="link">${escapeHtml(t('consent.switchAccount'))}</button></p></form>` +
        `<p>${escapeHtml(t('consent.asks', { client: input.clientName }))}</p><ul>${items}</ul>` +
        `<form method="post" action="/oauth/authorize/consent">${hidden(input.fields)}` +
        `<button type="submit" name="decision" value="allow">${escapeHtml(t('consent.allow'))}</button> ` +
        `<button type="submit" name="decision" value="deny" class="secondary">${escapeHtml(t('consent.deny'))}</button></form>`,
      formTargets: [input.redirectUri],
    };
  };

export const logoutConfirmPage =
  (fields: Record<string, string>, redirectTo: string | null): PageIn =>
  (t) => ({
    title: t('logout.title'),
    body: `<form method="post" action="/oauth/logout">${hidden(fields)}<button type="submit">${escapeHtml(t('logout.button'))}</button></form>`,
    formTargets: redirectTo ? [redirectTo] : [],
  });

export const signedOutPage = (): PageIn => (t) => ({
  title: t('signedOut.title'),
  body: `<p>${escapeHtml(t('signedOut.body'))}</p>`,
});
