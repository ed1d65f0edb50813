// GET /oauth/authorize and the consent form's POST. The route reads the query and session, asks authorize.ts, and
// writes what it decided: a redirect (302 for GET, 303 after a POST per DESIGN.md), the consent page or an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertSameOriginForm } from '../http/csrf.ts';
import type { SessionHttp } from '../session/http.ts';
import { type AuthorizeDeps, type AuthorizeOutcome, answerConsent, authorize } from './authorize.ts';
import { formParams, rawQuery } from './form.ts';
import { consentPage, errorPage, sendPage } from './pages.ts';

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

  app.post('/oauth/authorize/consent', async (request, reply) => {
    assertSameOriginForm(request, deps.sessions.issuerOrigin, 'The consent form');
    const form = formParams(request);
    const outcome = await answerConsent(
      deps,
      { request: form.request ?? '', csrf: form.csrf ?? '', decision: form.decision ?? '' },
      await deps.sessions.current(request),
    );
    return send(deps, request, reply, outcome, 303);
  });
}
