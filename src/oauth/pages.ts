// The few HTML pages the protocol needs until the UI exists: an error page (never a redirect to an unverified
// URI), the consent page and the logout pages. No script, no inline style; forms post to our own origin.
import type { FastifyReply } from 'fastify';

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
  `<title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;

export function sendPage(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .header('content-security-policy', "default-src 'none'; base-uri 'none'; frame-ancestors 'none'")
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}

export function errorPage(code: string, description: string, requestId: string): string {
  return page(
    'This sign-in request cannot continue',
    `<p>${escapeHtml(description)}</p><dl><dt>Error</dt><dd><code>${escapeHtml(code)}</code></dd>` +
      `<dt>Request id</dt><dd><code>${escapeHtml(requestId)}</code></dd></dl>`,
  );
}

const SCOPE_WORDS: Record<string, string> = {
  openid: 'Know who you are (your account identifier)',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Stay signed in and act for you while you are away',
};

const hidden = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');

export function consentPage(input: { clientName: string; scopes: string[]; fields: Record<string, string> }): string {
  const items = input.scopes.map((s) => `<li>${escapeHtml(SCOPE_WORDS[s] ?? s)}</li>`).join('');
  return page(
    `${input.clientName} wants to access your account`,
    `<p>${escapeHtml(input.clientName)} asks to:</p><ul>${items}</ul>` +
      `<form method="post" action="/oauth/authorize/consent">${hidden(input.fields)}` +
      `<button type="submit" name="decision" value="allow">Allow</button> ` +
      `<button type="submit" name="decision" value="deny">Deny</button></form>`,
  );
}

export function logoutConfirmPage(fields: Record<string, string>): string {
  return page(
    'Sign out?',
    `<form method="post" action="/oauth/logout">${hidden(fields)}<button type="submit">Sign out</button></form>`,
  );
}

export const signedOutPage = () => page('You are signed out', '<p>You can close this window.</p>');
