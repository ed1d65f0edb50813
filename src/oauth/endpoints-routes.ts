// Userinfo, introspection, revocation and logout routes: parse, one call, reply.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { isSameOrigin } from '../http/csrf.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { parseFormBody } from '../http/form-body.ts';
import { ACCESS_TOKEN, CLIENT, htmlPage, noBody, redirect } from '../http/route-schema.ts';
import { attemptContext } from '../login/local/deps.ts';
import type { SessionHttp } from '../session/http.ts';
import { presentedToken } from './bearer.ts';
import { authenticateClient, type ClientAuthDeps, rejectAuthorizationHeader } from './client-auth.ts';
import { allowPreflight, corsHeaders } from './cors.ts';
import { type DpopDeps, requestBinding } from './dpop.ts';
import { formParams, forwardedQuery, rawQuery, tokenParameter } from './form.ts';
import { answerIntrospection } from './introspection.ts';
import type { Keyring } from './keyring.ts';
import { LOGOUT_PARAMETERS, type LogoutParams, type LogoutPlan, planLogout } from './logout.ts';
import { logoutConfirmPage, type PageShell, sendErrorPage, sendPage, signedOutPage } from './pages.ts';
import { pushAuthorizationRequest } from './par.ts';
import { revokeToken } from './revocation.ts';
import {
  ClientErrors,
  IntrospectionAnswer,
  LogoutParameters,
  ParAnswer,
  ParErrors,
  ParForm,
  RevocationErrors,
  TokenParameterForm,
  UserinfoAnswer,
  UserinfoErrors,
} from './route-schemas.ts';
import type { TokenStateCache } from './token-state-cache.ts';
import type { AccessTokenVerifier } from './tokens.ts';
import { userinfoClaims } from './userinfo.ts';

export interface EndpointDeps extends ClientAuthDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
  verifier: AccessTokenVerifier;
  keyring: Keyring;
  issuer: string;
  clock: () => Date;
  audit: Audit;
  sessions: SessionHttp;
  /** What the logout pages share with the UI's (stylesheets, brand header). */
  shell: PageShell;
  dpop: DpopDeps;
  /** The signing secret, which MACs refresh token values (refresh-token-value.ts). */
  refreshKey: Buffer;
}

export async function endpointRoutes(app: FastifyInstance, deps: EndpointDeps): Promise<void> {
  const userinfo = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedToken(request.headers.authorization);
    // RFC 9449 §9: a resource that requires nonces serves the next one with its answers.
    if (deps.dpop.nonces && presented.scheme === 'dpop') reply.header('dpop-nonce', deps.dpop.nonces.current());
    const resource = { method: request.method, path: '/oauth/userinfo', dpop: request.headers.dpop };
    return userinfoClaims(deps, presented, resource);
  };
  allowPreflight(app, '/oauth/userinfo', 'GET, POST');
  const userinfoSchema = {
    summary: "UserInfo (OIDC Core §5.3): the claims of the access token's user",
    tags: ['oauth'],
    security: ACCESS_TOKEN,
    response: { 200: UserinfoAnswer, ...UserinfoErrors },
  };
  app.get('/oauth/userinfo', { onSend: corsHeaders, schema: userinfoSchema }, userinfo);
  app.post('/oauth/userinfo', { onSend: corsHeaders, schema: userinfoSchema }, userinfo);

  // Not async: a request the node's caches answer is answered without a promise, in JSON text built once per token
  // (introspection.ts).
  const introspection = {
    summary: 'Token introspection (RFC 7662) for confidential clients',
    tags: ['oauth'],
    security: CLIENT,
    handlerParses: { form: TokenParameterForm },
    response: { 200: IntrospectionAnswer, ...ClientErrors },
  };
  app.post('/oauth/introspect', { schema: introspection }, (request, reply) => {
    rejectAuthorizationHeader(request.headers.authorization);
    reply.header('content-type', 'application/json; charset=utf-8');
    return answerIntrospection(deps, formParams(request), attemptContext(request));
  });

  // RFC 9126 §2: 201 with the request_uri; like the token endpoint, never cached, open to browser clients, and
  // serving DPoP nonces when they are required (RFC 9449 §8).
  allowPreflight(app, '/oauth/par', 'POST');
  const par = {
    summary: 'Pushed authorization request (RFC 9126)',
    tags: ['oauth'],
    security: CLIENT,
    handlerParses: { form: ParForm },
    response: { 201: ParAnswer, ...ParErrors },
  };
  app.post('/oauth/par', { onSend: corsHeaders, schema: par }, async (request, reply) => {
    rejectAuthorizationHeader(request.headers.authorization);
    const form = formParams(request);
    // The client first (RFC 9126 §2.1): an unauthenticated push is invalid_client whatever its DPoP header says, and
    // spends no proof. Then RFC 9449 §10.1: the proof is checked as at the token endpoint, and its key binds the code.
    const client = await authenticateClient(deps, form, attemptContext(request));
    const binding = await requestBinding(deps.dpop, request.headers.dpop, '/oauth/par');
    if (deps.dpop.nonces) reply.header('dpop-nonce', deps.dpop.nonces.current());
    const pushed = await pushAuthorizationRequest(deps, client, form, binding);
    return reply.code(201).header('cache-control', 'no-store').send(pushed);
  });

  allowPreflight(app, '/oauth/revoke', 'POST');
  const revocation = {
    summary: 'Token revocation (RFC 7009)',
    tags: ['oauth'],
    security: CLIENT,
    handlerParses: { form: TokenParameterForm },
    response: {
      200: noBody('Revoked, or the token was unknown (RFC 7009 §2.2).'),
      ...RevocationErrors,
    },
  };
  app.post('/oauth/revoke', { onSend: corsHeaders, schema: revocation }, async (request, reply) => {
    rejectAuthorizationHeader(request.headers.authorization);
    const form = formParams(request);
    const context = attemptContext(request);
    await revokeToken(deps, await authenticateClient(deps, form, context), tokenParameter(form), context);
    return reply.code(200).send();
  });

  const logoutError = (request: FastifyRequest, reply: FastifyReply, error: GatehouseError) =>
    sendErrorPage(request, reply, error, deps.shell, 'sign-out');
  const logout = async (request: FastifyRequest, reply: FastifyReply, params: LogoutParams, confirmed: boolean) => {
    const plan: LogoutPlan = await planLogout(deps, params, await deps.sessions.current(request), confirmed);
    if (plan.kind === 'error-page') return logoutError(request, reply, plan.error);
    if (plan.kind === 'confirm')
      return sendPage(request, reply, 200, logoutConfirmPage(plan.fields, plan.redirectTo), deps.shell);
    await deps.sessions.end(request, reply);
    return plan.location
      ? reply
          .code(confirmed ? 303 : 302)
          .header('location', plan.location)
          .send()
      : sendPage(request, reply, 200, signedOutPage(), deps.shell);
  };
  const logoutAnswers = {
    200: htmlPage('The confirmation page, or the signed-out page.'),
    302: redirect('To post_logout_redirect_uri, signed out.'),
    400: htmlPage('An error page naming the error code and the request id.'),
  };
  const logoutGet = {
    summary: 'RP-Initiated Logout 1.0 end-session endpoint',
    tags: ['oauth'],
    handlerParses: { query: LogoutParameters },
    response: logoutAnswers,
  };
  app.get('/oauth/logout', { schema: logoutGet }, async (request, reply) => {
    // Parsed like a form body: a repeated parameter is refused, as at the authorization endpoint.
    let params: LogoutParams;
    try {
      params = parseFormBody(rawQuery(request.url));
    } catch (error) {
      if (error instanceof InvalidRequest) return logoutError(request, reply, error);
      throw error;
    }
    return logout(request, reply, params, false);
  });
  // RP-Initiated Logout 1.0 §2: the end-session endpoint takes POST as well as GET. Only our own confirmation
  // form (same origin) means "confirmed". A relying party's form POST goes on to the GET with the same parameters
  // (303), so the GET's rules decide, and the browser's top-level GET carries the SameSite=Lax session cookie that a
  // cross-site POST may lack. A malformed body (a repeated parameter) gets the GET's error page.
  const logoutFormError = (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof GatehouseError && error.code === 'invalid_request') return logoutError(request, reply, error);
    throw error;
  };
  const logoutPost = {
    summary: 'End-session endpoint by form POST; only the confirmation form (same origin) signs out',
    tags: ['oauth'],
    handlerParses: { form: LogoutParameters },
    response: {
      200: htmlPage('The signed-out page.'),
      303: redirect('Cross-origin: to GET /oauth/logout with the same parameters; confirmed: to the redirect URI.'),
      400: htmlPage('An error page naming the error code and the request id.'),
    },
  };
  app.post('/oauth/logout', { errorHandler: logoutFormError, schema: logoutPost }, async (request, reply) => {
    const params = formParams(request);
    if (!isSameOrigin(request, deps.sessions.issuerOrigin))
      return reply
        .code(303)
        .header('location', `/oauth/logout?${forwardedQuery(params, LOGOUT_PARAMETERS)}`)
        .send();
    return logout(request, reply, params, true);
  });
}
