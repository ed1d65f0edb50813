// GET (and POST) /oauth/authorize and the consent form's POST. The route reads the query and session, asks authorize.ts, and
// writes what it decided: a redirect (302 for GET, 303 after a POST per DESIGN.md), the consent page or an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertSameOriginForm } from '../http/csrf.ts';
import { GatehouseError } from '../http/errors.ts';
import type { SessionHttp } from '../session/http.ts';
import { type AuthorizeDeps, type AuthorizeOutcome, answerConsent, authorize } from './authorize.ts';
import { formParams, forwardedQuery, rawQuery } from './form.ts';
import { consentPage, errorPage, sendPage } from './pages.ts';

// The consent form carries the authorization request's query as URLSearchParams writes it. The request line that
// brought it is at most Node's 16 KB header limit, and re-encoding can triple a character ("/" becomes "%2F").
const CONSENT_REQUEST_MAX = 3 * 16_384;

type Deps = AuthorizeDeps & { sessions: SessionHttp; stylesheet: string | null };

function send(
  deps: Deps,
  request: FastifyRequest,
  reply: FastifyReply,
  outcome: AuthorizeOutcome,
  redirectStatus: 302 | 303,
) {
  switch (outcome.kind) {
    case 'redirect':
      return reply.code(redirectStatus).header('location', outcome.location).send();
    case 'consent':
      return sendPage(reply, 200, consentPage(outcome), deps.stylesheet);
    case 'error-page':
      return sendPage(
        reply,
        400,
        errorPage(outcome.error.code, outcome.error.publicDescription, request.id),
        deps.stylesheet,
      );
  }
}

export async function authorizeRoutes(app: FastifyInstance, deps: Deps) {
  app.get('/oauth/authorize', async (request, reply) => {
    const query = new URLSearchParams(rawQuery(request.url));
    const outcome = await authorize(deps, query, await deps.sessions.current(request));
    return send(deps, request, reply, outcome, 302);
  });

  // OIDC Core §3.1.2.1: the endpoint takes POST as well as GET. A relying party's form POST goes on to the GET with
  // the same parameters (303): the browser's top-level GET carries the SameSite=Lax session cookie that a cross-site
  // POST lacks, and the GET's rules decide the rest. A body the form parser refuses (a repeated or over-long
  // parameter, a control character, more than a URL can carry) gets the GET's error page; the request cannot be
  // trusted enough to redirect.
  const formError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (!(error instanceof GatehouseError) || error.code !== 'invalid_request') throw error;
    return send(deps, request, reply, { kind: 'error-page', error }, 303);
  };
  app.post('/oauth/authorize', { errorHandler: formError }, async (request, reply) => {
    return reply
      .code(303)
      .header('location', `/oauth/authorize?${forwardedQuery(formParams(request))}`)
      .send();
  });

  app.post('/oauth/authorize/consent', async (request, reply) => {
    assertSameOriginForm(request, deps.sessions.issuerOrigin, 'The consent form');
    const form = formParams(request, { request: CONSENT_REQUEST_MAX });
    const outcome = await answerConsent(
      deps,
      { request: form.request ?? '', csrf: form.csrf ?? '', decision: form.decision ?? '' },
      await deps.sessions.current(request),
    );
    return send(deps, request, reply, outcome, 303);
  });
}
