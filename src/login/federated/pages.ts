// The pages a federated round trip can end on instead of a redirect: the "this email belongs to an existing account"
// page (SPEC.md: accounts are never merged by email, so it explains the link path instead), sign-up closed, and the
// refusals (unknown or replayed transaction, an answer that failed verification, a link owned elsewhere).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { reportError } from '../../http/error-envelope.ts';
import { escapeHtml, type HtmlPage, type PageShell, sendPage } from '../../http/html-page.ts';

/** Where the link path starts: sign in to the existing account, then come back to link this provider. */
export const linkPath = (providerId: string) =>
  `/signin?return_to=${encodeURIComponent(`/account/connections/start?provider=${encodeURIComponent(providerId)}&return_to=%2Fsettings`)}`;

export function emailInUsePage(providerName: string, providerId: string): HtmlPage {
  const name = escapeHtml(providerName);
  return {
    title: 'This email address belongs to an existing account',
    body:
      `<p>The ${name} account you used has an email address that another account here already uses. ` +
      'Accounts are never joined just because their email addresses match: someone else could have set that address ' +
      `on a ${name} account.</p>` +
      `<p>If the existing account is yours, sign in to it the way you usually do, then link ${name} to it. After ` +
      `that, ${name} signs you in to the same account.</p>` +
      `<p><a class="button" href="${escapeHtml(linkPath(providerId))}">Sign in to your existing account to link it</a></p>` +
      '<p class="aside"><a href="/signin">Back to sign-in</a></p>',
  };
}

export function signupClosedPage(providerName: string): HtmlPage {
  const name = escapeHtml(providerName);
  return {
    title: 'No account is linked to this sign-in',
    body:
      `<div class="notice notice-error" role="alert"><p>No account here is linked to the ${name} account you ` +
      'used, and new accounts cannot be created here.</p></div>' +
      `<p>If you already have an account, sign in to it another way and link ${name} from your account page. ` +
      'Otherwise ask the administrator for an account.</p>' +
      '<p class="aside"><a href="/signin">Back to sign-in</a></p>',
  };
}

export function refusalPage(code: string, description: string, requestId: string): HtmlPage {
  return {
    title: 'This sign-in cannot continue',
    body:
      `<div class="notice notice-error" role="alert"><p>${escapeHtml(description)}</p>` +
      `<p class="request-id">Error: <code>${escapeHtml(code)}</code></p>` +
      `<p class="request-id">Request ID: <code>${escapeHtml(requestId)}</code></p></div>` +
      '<p><a href="/signin">Back to sign-in</a> · <a href="/settings">Your account</a></p>',
  };
}

/**
 * The browser flows' error handler: whatever was thrown is mapped and logged as the one error handler does (so a
 * framework refusal such as 415 or 413 keeps its status and a server fault its generic text), then shown as a page.
 */
export function sendRefusalPage(request: FastifyRequest, reply: FastifyReply, error: unknown, shell: PageShell) {
  const refused = reportError(request, error);
  reply.headers(refused.headers);
  return sendPage(reply, refused.status, refusalPage(refused.code, refused.publicDescription, request.id), shell);
}
