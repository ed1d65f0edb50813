// The pages a federated round trip can end on instead of a redirect: the "this email belongs to an existing account"
// page (SPEC.md: accounts are never merged by email, so it explains the link path instead), sign-up closed, and the
// refusals (unknown or replayed transaction, an answer that failed verification, a link owned elsewhere).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { reportError } from '../../http/error-envelope.ts';
import { errorDetails, escapeHtml, type PageIn, type PageShell, sendPage } from '../../http/html-page.ts';
import type { Translate } from '../../i18n/translate.ts';

/** Where the link path starts: sign in to the existing account, then come back to link this provider. */
export const linkPath = (providerId: string) =>
  `/signin?return_to=${encodeURIComponent(`/account/connections/start?provider=${encodeURIComponent(providerId)}&return_to=%2Fsettings`)}`;

const paragraph = (text: string) => `<p>${escapeHtml(text)}</p>`;
const backToSignIn = (t: Translate) =>
  `<p class="aside"><a href="/signin">${escapeHtml(t('federated.backToSignIn'))}</a></p>`;

export const emailInUsePage =
  (providerName: string, providerId: string): PageIn =>
  (t) => ({
    title: t('federated.emailInUse.title'),
    body:
      paragraph(t('federated.emailInUse.why', { provider: providerName })) +
      paragraph(t('federated.emailInUse.how', { provider: providerName })) +
      `<p><a class="button" href="${escapeHtml(linkPath(providerId))}">${escapeHtml(t('federated.emailInUse.link'))}</a></p>` +
      backToSignIn(t),
  });

export const signupClosedPage =
  (providerName: string): PageIn =>
  (t) => ({
    title: t('federated.signupClosed.title'),
    body:
      `<div class="notice notice-error" role="alert">${paragraph(t('federated.signupClosed.why', { provider: providerName }))}</div>` +
      paragraph(t('federated.signupClosed.how', { provider: providerName })) +
      backToSignIn(t),
  });

export const refusalPage =
  (code: string, description: string, requestId: string): PageIn =>
  (t) => ({
    title: t('federated.refusal.title'),
    body:
      `<div class="notice notice-error" role="alert">${paragraph(description)}${errorDetails(t, code, requestId)}</div>` +
      `<p><a href="/signin">${escapeHtml(t('federated.backToSignIn'))}</a> · ` +
      `<a href="/settings">${escapeHtml(t('federated.yourAccount'))}</a></p>`,
  });

/**
 * The browser flows' error handler: whatever was thrown is mapped and logged as the one error handler does (so a
 * framework refusal such as 415 or 413 keeps its status and a server fault its generic text), then shown as a page.
 */
export function sendRefusalPage(request: FastifyRequest, reply: FastifyReply, error: unknown, shell: PageShell) {
  const refused = reportError(request, error);
  reply.headers(refused.headers);
  return sendPage(
    request,
    reply,
    refused.status,
    refusalPage(refused.code, refused.publicDescription, request.id),
    shell,
  );
}
