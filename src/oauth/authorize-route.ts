// GET (and POST) /oauth/authorize and the consent form's POST. The route reads the query and session, asks authorize.ts, and
// writes what it decided: a redirect (302 for GET, 303 after a POST per DESIGN.md), the consent page or an error page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Audit } from '../audit/audit.ts';
import { assertSameOriginForm } from '../http/csrf.ts';
import { errorResponses } from '../http/error-responses.ts';
import { GatehouseError, NotFound } from '../http/errors.ts';
import { htmlPage, redirect, SESSION } from '../http/route-schema.ts';
import { Type } from '../schema/type.ts';
import type { SessionHttp } from '../session/http.ts';
import {
  type AuthorizeDeps,
  type AuthorizeOutcome,
  answerConsent,
  authorize,
  pendingClientName,
  switchAccount,
} from './authorize.ts';
import { formParams, forwardedQuery, rawQuery } from './form.ts';
import { consentPage, type PageShell, sendErrorPage, sendPage } from './pages.ts';
import { AuthorizeQuery, ConsentForm } from './route-schemas.ts';

// The consent form carries the authorization request's query as URLSearchParams writes it. The request line that
// brought it is at most Node's 16 KB header limit, and re-encoding can triple a character ("/" becomes "%2F").
const CONSENT_REQUEST_MAX = 3 * 16_384;

type Deps = AuthorizeDeps & { sessions: SessionHttp; audit: Audit; shell: PageShell };

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
      return sendPage(request, reply, 200, consentPage(outcome), deps.shell);
    case 'error-page':
      return sendErrorPage(request, reply, outcome.error, deps.shell, 'sign-in');
  }
}

export async function authorizeRoutes(app: FastifyInstance, deps: Deps) {
  const errorPageAnswer = htmlPage('An error page when the client or redirect URI cannot be trusted to redirect to.');
  const authorizeGet = {
    summary: 'Authorization endpoint (RFC 6749 §4.1.1, OIDC Core §3.1.2): code flow with PKCE S256',
    tags: ['oauth'],
    handlerParses: { query: AuthorizeQuery },
    response: {
      200: htmlPage('The consent page.'),
      302: redirect('To the redirect URI with code (or error), state and iss; or to the sign-in page.'),
      400: errorPageAnswer,
    },
  };
  app.get('/oauth/authorize', { schema: authorizeGet }, async (request, reply) => {
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
  const authorizePost = {
    summary: 'Authorization endpoint by form POST: goes on to the GET with the same parameters',
    tags: ['oauth'],
    handlerParses: { form: AuthorizeQuery },
    response: { 303: redirect('To GET /oauth/authorize with the same parameters.'), 400: errorPageAnswer },
  };
  app.post('/oauth/authorize', { errorHandler: formError, schema: authorizePost }, async (request, reply) => {
    return reply
      .code(303)
      .header('location', `/oauth/authorize?${forwardedQuery(formParams(request))}`)
      .send();
  });

  const consent = {
    summary: "The consent page's answer",
    tags: ['oauth'],
    security: SESSION,
    handlerParses: { form: ConsentForm },
    response: {
      200: htmlPage('The consent page again.'),
      303: redirect('To the redirect URI with code or error.'),
      400: errorPageAnswer,
      // authorize.ts answerConsent: the session ended (or never was) between the page and its answer.
      ...errorResponses('csrf_rejected', 'login_required'),
    },
  };
  app.post('/oauth/authorize/consent', { schema: consent }, async (request, reply) => {
    assertSameOriginForm(request, deps.sessions.issuerOrigin, 'The consent form');
    const form = formParams(request, { request: CONSENT_REQUEST_MAX });
    const outcome = await answerConsent(
      deps,
      { request: form.request ?? '', csrf: form.csrf ?? '', decision: form.decision ?? '' },
      await deps.sessions.current(request),
    );
    return send(deps, request, reply, outcome, 303);
  });

  // "Not you? Use another account": ends this session (as POST /auth/logout would) and signs in again for the same
  // request. A form POST, since the consent page runs no script; the consent form's token is its CSRF proof.
  const switchAccountSchema = {
    summary: 'Signs out and signs in again for the same authorization request',
    tags: ['oauth'],
    handlerParses: { form: Type.Omit(ConsentForm, ['decision']) },
    response: {
      303: redirect('To the sign-in page for the same request.'),
      ...errorResponses('csrf_rejected', 'login_required'),
    },
  };
  app.post('/oauth/authorize/switch-account', { schema: switchAccountSchema }, async (request, reply) => {
    assertSameOriginForm(request, deps.sessions.issuerOrigin, 'The consent form');
    const form = formParams(request, { request: CONSENT_REQUEST_MAX });
    const session = await deps.sessions.current(request);
    const location = switchAccount(deps, { request: form.request ?? '', csrf: form.csrf ?? '' }, session);
    await deps.sessions.end(request, reply);
    if (session)
      await deps.audit.record({
        event: 'session.ended',
        actor: session.identityId,
        subject: session.identityId,
        clientIp: request.clientIp,
        requestId: request.id,
        details: { session_id: session.id },
      });
    return reply.code(303).header('location', location).send();
  });

  // The hosted sign-in page asks which application a pending request is for (its return_to's client_id and
  // redirect_uri), to say "Sign in to continue to <name>".
  const pendingClient = {
    summary: 'The name of the application a pending authorization request is for',
    tags: ['oauth'],
    handlerParses: {
      query: Type.Object({ client_id: Type.String(), redirect_uri: Type.String() }, { additionalProperties: true }),
    },
    response: {
      200: Type.Object({ name: Type.String() }, { additionalProperties: false }),
      ...errorResponses('not_found'),
    },
  };
  app.get<{ Querystring: Record<string, string> }>(
    '/oauth/authorize/client',
    { schema: pendingClient },
    async (request, reply) => {
      const name = await pendingClientName(deps, new URLSearchParams(rawQuery(request.url)));
      if (name === null) throw new NotFound('No client signs in with this client_id and redirect_uri');
      return reply.header('cache-control', 'no-store').send({ name });
    },
  );
}
