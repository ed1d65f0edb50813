// Redirect-provider sign-in and linking (SPEC.md "Endpoints"): GET /auth/federated/start (sign-in, from the sign-in
// and sign-up pages' buttons), GET /account/connections/start (link to the signed-in identity), and the one shared
// callback, GET and POST (response_mode=form_post) /auth/federated/callback. These are browser navigations, so every
// outcome is a redirect or an HTML page, never a JSON envelope.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatehouseError, InvalidRequest } from '../../http/errors.ts';
import { addFormBodyParser } from '../../http/form-body.ts';
import { type PageShell, sendPage } from '../../http/html-page.ts';
import { safeReturnTo } from '../../http/return-to.ts';
import { htmlPage, redirect, SESSION } from '../../http/route-schema.ts';
import { Type } from '../../schema/type.ts';
import type { SessionHttp } from '../../session/http.ts';
import { afterSignIn, isComplete } from '../../session/partial.ts';
import { completeCallback } from './callback.ts';
import { clearFederatedCookie, readFederatedCookie, setFederatedCookie } from './cookie.ts';
import type { FederatedDeps } from './deps.ts';
import { emailInUsePage, sendRefusalPage, signupClosedPage } from './pages.ts';
import { CALLBACK_PATH } from './registry.ts';
import { startRoundTrip } from './round-trip.ts';
import type { Purpose } from './store.ts';

export interface FederatedRouteOptions {
  deps: FederatedDeps;
  sessions: SessionHttp;
  /** The hosted pages' stylesheets and organization header. */
  shell: PageShell;
}

/** return_to must be a local path (DESIGN.md "no open redirect"): anything else is refused, not quietly replaced. */
function returnToOf(query: URLSearchParams, fallback: string): string {
  const value = query.get('return_to');
  if (value === null || value === '') return fallback;
  if (safeReturnTo(value) !== value) throw new InvalidRequest('return_to must be a local path');
  return value;
}

const queryOf = (request: FastifyRequest) => new URLSearchParams(request.url.split('?')[1] ?? '');

export async function federatedRoutes(app: FastifyInstance, { deps, sessions, shell }: FederatedRouteOptions) {
  addFormBodyParser(app);
  app.setErrorHandler((error, request, reply) => sendRefusalPage(request, reply, error, shell));

  const start = async (reply: FastifyReply, purpose: Purpose, query: URLSearchParams, identityId: FederatedStart) => {
    const providerId = query.get('provider');
    if (!providerId) throw new InvalidRequest('provider is required');
    const returnTo = returnToOf(query, purpose === 'link' ? '/settings' : '/');
    const started = await startRoundTrip(deps, { providerId, purpose, identityId, returnTo });
    setFederatedCookie(reply, deps.issuer, started.cookie, started.maxAgeSeconds);
    return reply.code(302).header('location', started.location.href).send();
  };

  const refusal = (description: string) => htmlPage(description);
  const pages = {
    400: refusal('A refusal page: the sign-in attempt or the provider answer was not accepted.'),
    403: refusal('A refusal page: sign-up is closed, or self-service is disabled.'),
    404: refusal('A refusal page: the provider is not offered here.'),
    500: refusal('A refusal page: the server could not complete the request.'),
    503: refusal('A refusal page: a service this sign-in needs is unavailable.'),
  };
  const providerQuery = Type.Object(
    {
      provider: Type.String({ description: 'A provider id from GET /auth/providers.' }),
      return_to: Type.Optional(Type.String({ description: 'A local path to return to.' })),
    },
    { additionalProperties: true },
  );
  const startSchema = {
    summary: 'Starts signing in with a redirect provider',
    tags: ['sign-in'],
    handlerParses: { query: providerQuery },
    response: { 302: redirect("To the provider's authorization endpoint."), ...pages },
  };
  app.get('/auth/federated/start', { schema: startSchema }, async (request, reply) =>
    start(reply, 'sign_in', queryOf(request), null),
  );

  const linkSchema = {
    summary: 'Starts linking a redirect-provider account to yours',
    tags: ['account'],
    security: SESSION,
    handlerParses: { query: providerQuery },
    response: { 302: redirect("To the provider's authorization endpoint, or to sign in first."), ...pages },
  };
  app.get('/account/connections/start', { schema: linkSchema }, async (request, reply) => {
    if (!deps.selfService) throw new GatehouseError('self_service_disabled');
    const session = await sessions.current(request);
    // Signed out: sign in first, then come back here (the whole path is local, so it is a safe return_to).
    if (!session || !isComplete(session))
      return reply
        .code(302)
        .header('location', `/signin?return_to=${encodeURIComponent(request.url)}`)
        .send();
    return start(reply, 'link', queryOf(request), session.identityId);
  });

  const callback = async (request: FastifyRequest, reply: FastifyReply, method: 'GET' | 'POST') => {
    const params = method === 'GET' ? queryOf(request) : new URLSearchParams(request.body as Record<string, string>);
    const cookie = readFederatedCookie(request, deps.issuer);
    clearFederatedCookie(reply, deps.issuer);
    const session = await sessions.current(request);
    const outcome = await completeCallback(
      deps,
      { clientIp: request.clientIp, requestId: request.id },
      { callback: { method, params }, cookie, signedIn: session?.identityId ?? null },
    );
    switch (outcome.kind) {
      case 'signed_in': {
        const started = await sessions.establish(request, reply, outcome.start);
        // 303: a form_post callback must continue as a GET. A partial session goes through its second step first.
        return reply.code(303).header('location', afterSignIn(started, outcome.returnTo)).send();
      }
      case 'linked':
        return reply.code(303).header('location', outcome.returnTo).send();
      case 'email_in_use':
        return sendPage(request, reply, 409, emailInUsePage(outcome.provider.name, outcome.provider.id), shell);
      case 'signup_closed':
        return sendPage(request, reply, 403, signupClosedPage(outcome.provider.name), shell);
    }
  };
  const callbackParameters = Type.Object(
    { state: Type.Optional(Type.String()), code: Type.Optional(Type.String()), error: Type.Optional(Type.String()) },
    { additionalProperties: true },
  );
  const callbackAnswers = {
    303: redirect('Signed in or linked: to the return_to path.'),
    409: refusal('The email address belongs to another account; it is never linked automatically.'),
    ...pages,
  };
  const callbackGet = {
    summary: "The providers' redirect back",
    tags: ['sign-in'],
    handlerParses: { query: callbackParameters },
    response: callbackAnswers,
  };
  app.get(CALLBACK_PATH, { schema: callbackGet }, async (request, reply) => callback(request, reply, 'GET'));
  const callbackPost = {
    summary: "The providers' redirect back as a form POST (response_mode=form_post)",
    tags: ['sign-in'],
    handlerParses: { form: callbackParameters },
    response: {
      ...callbackAnswers,
      413: refusal('A refusal page: the form is too large.'),
      415: refusal('A refusal page: the body is not application/x-www-form-urlencoded.'),
    },
  };
  app.post(CALLBACK_PATH, { schema: callbackPost }, async (request, reply) => callback(request, reply, 'POST'));
}

type FederatedStart = Parameters<typeof startRoundTrip>[1]['identityId'];
