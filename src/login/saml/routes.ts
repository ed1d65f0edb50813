// SAML 2.0 service provider routes, one set per `[saml.<id>]` connection (SPEC.md names no SAML paths; these are
// documented in docs/identity.md): GET /auth/saml/<id>/metadata (SP metadata, also our entity id), GET
// /auth/saml/<id>/start (SP-initiated: a signed AuthnRequest by HTTP-Redirect), GET /auth/saml/<id>/link (the same,
// to link the connection to the signed-in identity) and POST /auth/saml/<id>/acs (the assertion consumer service,
// HTTP-POST). Browser navigations get an HTML page on refusal; any other client the
// JSON error envelope, with the same catalogue code.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../../http/error-catalogue.ts';
import { errorEnvelopeSchema } from '../../http/error-responses.ts';
import { GatehouseError, InvalidRequest } from '../../http/errors.ts';
import { addFormBodyParser } from '../../http/form-body.ts';
import { type PageShell, sendPage } from '../../http/html-page.ts';
import { safeReturnTo } from '../../http/return-to.ts';
import { mediaAnswer, redirect, SESSION } from '../../http/route-schema.ts';
import type { Sub } from '../../identity/ids.ts';
import { Type } from '../../schema/type.ts';
import type { SessionHttp } from '../../session/http.ts';
import { afterSignIn, isComplete } from '../../session/partial.ts';
import { sendRefusalPage, signupClosedPage } from '../federated/pages.ts';
import { ACS_BODY_LIMIT_BYTES, routeBodyLimit } from './body-limits.ts';
import { clearSamlCookie, readSamlCookie, setSamlCookie } from './cookie.ts';
import type { SamlDeps } from './deps.ts';
import { finishSamlRoundTrip, offeredConnection, readyConnection, startSamlRoundTrip } from './round-trip.ts';
import { signInWithAssertion } from './sign-in.ts';

export interface SamlRouteOptions {
  deps: SamlDeps;
  sessions: SessionHttp;
  shell: PageShell;
}

const connectionParam = (request: FastifyRequest) => (request.params as { id: string }).id;
const wantsHtml = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/html');

export async function samlRoutes(app: FastifyInstance, { deps, sessions, shell }: SamlRouteOptions) {
  addFormBodyParser(app);
  app.setErrorHandler((error, request, reply) => {
    // Not a browser: the one error handler above writes the envelope.
    if (!wantsHtml(request)) throw error;
    // A 5xx the catalogue exposes (saml_connection_unavailable) is a known state, shown with its text like a 4xx.
    return sendRefusalPage(request, reply, error, shell);
  });

  // Browsers (Accept: text/html) get a refusal page, other clients the envelope with the same code.
  const refusal = (status: number, description: string, ...codes: ErrorCode[]) => ({
    [status]: Type.Unsafe({
      description,
      content: {
        'text/html': { schema: Type.String() },
        'application/json': { schema: errorEnvelopeSchema(codes) },
      },
    }),
  });
  const connectionId = Type.Object({ id: Type.String({ description: 'The `[saml.<id>]` connection.' }) });
  const unknown = refusal(404, 'No such SAML connection here.', 'saml_connection_unknown');
  const notReady = refusal(
    503,
    "The connection's idp_metadata_url has not been fetched successfully yet.",
    'saml_connection_unavailable',
  );
  const metadata = {
    summary: "A SAML connection's service provider metadata (its entity id)",
    tags: ['sign-in'],
    params: connectionId,
    response: { 200: mediaAnswer('SAML 2.0 metadata.', 'application/samlmetadata+xml'), ...unknown },
  };
  app.get('/auth/saml/:id/metadata', { schema: metadata }, async (request, reply) => {
    const connection = offeredConnection(deps, connectionParam(request));
    // node-saml loads on first use (round-trip.ts says why).
    const { serviceProviderMetadata } = await import('./service-provider.ts');
    return reply.type('application/samlmetadata+xml').send(serviceProviderMetadata(connection));
  });

  const start = async (request: FastifyRequest, reply: FastifyReply, identityId: Sub | null) => {
    const value =
      new URLSearchParams(request.url.split('?')[1] ?? '').get('return_to') || (identityId ? '/settings' : '/');
    // DESIGN.md "no open redirect": a return_to that is not a local path is refused, not quietly replaced.
    if (safeReturnTo(value) !== value) throw new InvalidRequest('return_to must be a local path');
    const started = await startSamlRoundTrip(deps, connectionParam(request), value, identityId);
    setSamlCookie(reply, deps.issuer, started.cookie, started.maxAgeSeconds);
    return reply.code(302).header('location', started.location).send();
  };

  const returnTo = Type.Object(
    { return_to: Type.Optional(Type.String({ description: 'A local path to return to.' })) },
    { additionalProperties: true },
  );
  const startSchema = {
    summary: 'Starts a SAML sign-in: a signed AuthnRequest to the identity provider (HTTP-Redirect)',
    tags: ['sign-in'],
    params: connectionId,
    handlerParses: { query: returnTo },
    response: { 302: redirect('To the identity provider.'), ...unknown, ...notReady },
  };
  app.get('/auth/saml/:id/start', { schema: startSchema }, async (request, reply) => start(request, reply, null));

  // Links the connection to the signed-in identity; signed out, sign in first and come back here.
  const linkSchema = {
    summary: 'Starts linking a SAML identity to yours',
    tags: ['account'],
    security: SESSION,
    params: connectionId,
    handlerParses: { query: returnTo },
    response: { 302: redirect('To the identity provider, or to sign in first.'), ...unknown, ...notReady },
  };
  app.get('/auth/saml/:id/link', { schema: linkSchema }, async (request, reply) => {
    const session = await sessions.current(request);
    if (!session || !isComplete(session))
      return reply
        .code(302)
        .header('location', `/signin?return_to=${encodeURIComponent(request.url)}`)
        .send();
    return start(request, reply, session.identityId);
  });

  const acs = {
    summary: 'The assertion consumer service (HTTP-POST binding)',
    tags: ['sign-in'],
    params: connectionId,
    handlerParses: {
      form: Type.Object(
        { SAMLResponse: Type.String(), RelayState: Type.Optional(Type.String()) },
        { additionalProperties: true },
      ),
    },
    response: {
      303: redirect('Signed in or linked: to where the sign-in started.'),
      ...refusal(
        400,
        'The SAML response was refused.',
        'invalid_request',
        'saml_request_unknown',
        'saml_response_invalid',
        'saml_assertion_replayed',
        'saml_xml_refused',
      ),
      ...refusal(403, 'No account is linked and none may be created.', 'saml_signup_closed'),
      ...refusal(409, 'The SAML identity is linked to another account.', 'method_conflict'),
      ...refusal(413, 'The form is larger than 1 MiB (or server.body_limit_bytes, if larger).', 'payload_too_large'),
      ...refusal(415, 'The body is not application/x-www-form-urlencoded.', 'unsupported_media_type'),
      ...unknown,
      ...notReady,
    },
  };
  // Its own body limit: a response carrying many groups is several hundred kilobytes (body-limits.ts).
  const bodyLimit = routeBodyLimit(ACS_BODY_LIMIT_BYTES, app.initialConfig.bodyLimit ?? 0);
  app.post('/auth/saml/:id/acs', { schema: acs, bodyLimit }, async (request: FastifyRequest, reply: FastifyReply) => {
    const connection = readyConnection(deps, connectionParam(request));
    const samlResponse = (request.body as Record<string, string> | undefined)?.SAMLResponse;
    if (typeof samlResponse !== 'string' || samlResponse === '') throw new InvalidRequest('SAMLResponse is required');
    const cookie = readSamlCookie(request, deps.issuer);
    clearSamlCookie(reply, deps.issuer);
    const facts = { clientIp: request.clientIp, requestId: request.id };
    const assertion = await finishSamlRoundTrip(deps, facts, connection, samlResponse, cookie);
    const session = await sessions.current(request);
    const outcome = await signInWithAssertion(deps, facts, connection, assertion, session?.identityId ?? null);
    if (outcome.kind === 'signup_closed') {
      if (!wantsHtml(request)) throw new GatehouseError('saml_signup_closed');
      return sendPage(request, reply, 403, signupClosedPage(connection.config.name), shell);
    }
    if (outcome.kind === 'linked') return reply.code(303).header('location', assertion.request.returnTo).send();
    const signedIn = await sessions.establish(request, reply, outcome.start);
    // 303: the POST continues as a GET to where the sign-in started, through the second step when one is pending.
    return reply.code(303).header('location', afterSignIn(signedIn, assertion.request.returnTo)).send();
  });
}
