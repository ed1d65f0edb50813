// Sign In With Farcaster over JSON (docs/identity.md "Sign In With Farcaster"): POST /auth/web3/farcaster/start opens
// a relay channel and answers the deep link (and a QR code of it) for the Farcaster app; the page then POSTs
// /auth/web3/farcaster/complete with the channel until it answers 200 (signed in) instead of 202 (still waiting).
// /account/connections/farcaster/start and /complete do the same to link a Farcaster account to the signed-in
// identity. Every route changes state on the strength of a cookie, so each passes the CSRF rule.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomToken } from '../../crypto/primitives.ts';
import { assertSameOriginJson } from '../../http/csrf.ts';
import { errorResponses, SIGNED_IN_ERRORS } from '../../http/error-responses.ts';
import { GatehouseError } from '../../http/errors.ts';
import { SESSION } from '../../http/route-schema.ts';
import { Type } from '../../schema/type.ts';
import type { SessionHttp } from '../../session/http.ts';
import { SessionStarted, sessionStarted } from '../../session/route-schemas.ts';
import { readLoginCookie, setLoginCookie } from '../local/login-cookie.ts';
import { LOGIN_TRANSACTION_SECONDS } from '../local/sign-in.ts';
import type { FarcasterDeps } from './deps.ts';
import type { Purpose } from './store.ts';

// The Farcaster client and viem (about 60 MB resident) load with the first Farcaster request, not with every server
// that never enables the method (docs/decisions.md "Idle RSS: sign-in libraries load on first use").
const loadFarcasterSignIn = () => import('./sign-in-with-farcaster.ts');

export interface FarcasterRouteOptions {
  deps: FarcasterDeps;
  sessions: SessionHttp;
}

const startBody = Type.Object({}, { additionalProperties: false });
const completeBody = Type.Object(
  { channel: Type.String({ minLength: 1, maxLength: 64, pattern: '^[0-9a-f]+$' }) },
  { additionalProperties: false },
);

export const farcasterRoutes: FastifyPluginAsyncTypebox<FarcasterRouteOptions> = async (app, { deps, sessions }) => {
  const sameOrigin = async (request: FastifyRequest) => assertSameOriginJson(request, sessions.issuerOrigin);
  const facts = (request: FastifyRequest) => ({ clientIp: request.clientIp, requestId: request.id });
  const linking = async (request: FastifyRequest) => {
    if (!deps.selfService) throw new GatehouseError('self_service_disabled');
    return (await sessions.require(request)).identityId;
  };
  // Linking is signed in: once the body's media type passed, the session is required before validation, and a caller
  // without the cookie is 401 before the CSRF rule (session/http.ts). The handler's own call finds it cached.
  const signedIn = async (request: FastifyRequest) => {
    await linking(request);
  };

  const start = (purpose: Purpose) => async (request: FastifyRequest, reply: FastifyReply) => {
    const identityId = purpose === 'link' ? await linking(request) : null;
    const cookie = readLoginCookie(request, deps.issuer) ?? randomToken();
    const started = await (await loadFarcasterSignIn()).startFarcaster(deps, facts(request), {
      purpose,
      identityId,
      cookie,
    });
    setLoginCookie(reply, deps.issuer, cookie, LOGIN_TRANSACTION_SECONDS);
    // qrcode is loaded on first use, not at startup (several MB resident on every node; see login/local/routes.ts).
    const { default: QRCode } = await import('qrcode');
    const qrSvg = await QRCode.toString(started.url, { type: 'svg', margin: 2 });
    return { channel: started.channel, url: started.url, qr_svg: qrSvg, expires_in: started.expiresIn };
  };
  const Started = Type.Object(
    {
      channel: Type.String(),
      url: Type.String({ description: 'The deep link for the Farcaster app.' }),
      qr_svg: Type.String({ description: 'A QR code of the link (SVG).' }),
      expires_in: Type.Integer(),
    },
    { additionalProperties: false },
  );
  const startErrors = [
    'provider_not_available',
    'farcaster_relay_unavailable',
    'rate_limited',
    'csrf_rejected',
  ] as const;
  const signInStart = {
    summary: 'Starts Sign In With Farcaster: a relay channel and the link for the Farcaster app',
    tags: ['sign-in'],
    body: startBody,
    response: { 200: Started, ...errorResponses(...startErrors) },
  };
  app.post('/auth/web3/farcaster/start', { schema: signInStart, onRequest: sameOrigin }, start('sign_in'));
  const linkStart = {
    summary: 'Starts linking a Farcaster account to yours',
    tags: ['account'],
    security: SESSION,
    body: startBody,
    response: { 200: Started, ...errorResponses(...startErrors, ...SIGNED_IN_ERRORS, 'self_service_disabled') },
  };
  app.post('/account/connections/farcaster/start', { schema: linkStart, preValidation: signedIn }, start('link'));

  const complete =
    (purpose: Purpose) =>
    async (request: FastifyRequest<{ Body: Type.Static<typeof completeBody> }>, reply: FastifyReply) => {
      const signedIn =
        purpose === 'link' ? await linking(request) : ((await sessions.current(request))?.identityId ?? null);
      const outcome = await (await loadFarcasterSignIn()).pollFarcaster(deps, facts(request), {
        purpose,
        channel: request.body.channel,
        cookie: readLoginCookie(request, deps.issuer),
        signedIn,
      });
      if (outcome.kind === 'pending') return reply.code(202).send({ state: 'pending' } as never);
      if (outcome.kind === 'linked') return { linked: outcome.subject } as never; // only when purpose is 'link'
      const session = await sessions.establish(request, reply, outcome.start);
      return sessionStarted(session) as never; // only for 'sign_in'
    };
  const Pending = Type.Object(
    { state: Type.Literal('pending', { description: 'Not signed in the Farcaster app yet; ask again.' }) },
    { additionalProperties: false },
  );
  const completeErrors = [
    'provider_not_available',
    'wallet_message_invalid',
    'farcaster_signature_invalid',
    'federated_signup_closed',
    'method_conflict',
    'chain_unavailable',
    'farcaster_relay_unavailable',
    'rate_limited',
    'csrf_rejected',
  ] as const;
  const signInComplete = {
    summary: 'Asks whether the Farcaster app signed the message; signs in when it did',
    tags: ['sign-in'],
    body: completeBody,
    response: { 200: SessionStarted, 202: Pending, ...errorResponses(...completeErrors) },
  };
  app.post('/auth/web3/farcaster/complete', { schema: signInComplete, onRequest: sameOrigin }, complete('sign_in'));
  const linkComplete = {
    summary: 'Asks whether the Farcaster app signed the message; links the account when it did',
    tags: ['account'],
    security: SESSION,
    body: completeBody,
    response: {
      200: Type.Object({ linked: Type.String({ description: 'The method linked.' }) }, { additionalProperties: false }),
      202: Pending,
      ...errorResponses(...completeErrors, ...SIGNED_IN_ERRORS, 'self_service_disabled'),
    },
  };
  app.post(
    '/account/connections/farcaster/complete',
    { schema: linkComplete, preValidation: signedIn },
    complete('link'),
  );
};
