// Sign-In with Ethereum over JSON (the sign-in and account pages call these with fetch; docs/identity.md):
// POST /auth/web3/ethereum/start and /complete sign in; POST /account/connections/ethereum/start and /complete link
// a wallet to the signed-in identity (removal is the general POST /account/connections/:id/remove). Every route
// changes state on the strength of a cookie, so each passes the CSRF rule (DESIGN.md "CSRF").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Hex } from 'viem';
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
import type { EthereumDeps } from './deps.ts';
import type { Purpose } from './store.ts';

// viem and its SIWE parser (about 40 MB resident) load with the first Ethereum request, not with every server that
// never enables the method (docs/decisions.md "Idle RSS: sign-in libraries load on first use").
const loadEthereumSignIn = () => import('./sign-in-with-ethereum.ts');

export interface EthereumRouteOptions {
  deps: EthereumDeps;
  sessions: SessionHttp;
}

const body = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const startBody = body({
  address: Type.String({ minLength: 1, maxLength: 64 }),
  chain_id: Type.Integer({ minimum: 1 }),
});
// A signature is hex: 65 bytes from an externally owned account; EIP-1271 and EIP-6492 ones can be much longer.
const completeBody = body({
  message: Type.String({ minLength: 1, maxLength: 4096 }),
  signature: Type.String({ minLength: 4, maxLength: 16384, pattern: '^0x[0-9a-fA-F]*$' }),
});

export const ethereumRoutes: FastifyPluginAsyncTypebox<EthereumRouteOptions> = async (app, { deps, sessions }) => {
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

  const start =
    (purpose: Purpose) =>
    async (request: FastifyRequest<{ Body: Type.Static<typeof startBody> }>, reply: FastifyReply) => {
      const identityId = purpose === 'link' ? await linking(request) : null;
      // One login cookie per browser, as for passkeys: a password sign-in under way keeps working beside this one.
      const cookie = readLoginCookie(request, deps.issuer) ?? randomToken();
      const { address, chain_id } = request.body;
      const started = await (await loadEthereumSignIn()).startEthereum(deps, facts(request), {
        address,
        chainId: chain_id,
        purpose,
        identityId,
        cookie,
      });
      setLoginCookie(reply, deps.issuer, cookie, LOGIN_TRANSACTION_SECONDS);
      return { message: started.message, expires_in: started.expiresIn };
    };
  const Started = Type.Object(
    {
      message: Type.String({ description: 'The EIP-4361 message for the wallet to sign.' }),
      expires_in: Type.Integer(),
    },
    { additionalProperties: false },
  );
  const startErrors = ['provider_not_available', 'rate_limited', 'csrf_rejected'] as const;
  const signInStart = {
    summary: 'Starts Sign-In with Ethereum: the message to sign',
    tags: ['sign-in'],
    body: startBody,
    response: { 200: Started, ...errorResponses(...startErrors) },
  };
  app.post('/auth/web3/ethereum/start', { schema: signInStart, onRequest: sameOrigin }, start('sign_in'));
  const linkStart = {
    summary: 'Starts linking a wallet to your account: the message to sign',
    tags: ['account'],
    security: SESSION,
    body: startBody,
    response: { 200: Started, ...errorResponses(...startErrors, ...SIGNED_IN_ERRORS, 'self_service_disabled') },
  };
  app.post('/account/connections/ethereum/start', { schema: linkStart, preValidation: signedIn }, start('link'));

  const complete =
    (purpose: Purpose) =>
    async (request: FastifyRequest<{ Body: Type.Static<typeof completeBody> }>, reply: FastifyReply) => {
      const signedIn =
        purpose === 'link' ? await linking(request) : ((await sessions.current(request))?.identityId ?? null);
      const outcome = await (await loadEthereumSignIn()).completeEthereum(deps, facts(request), {
        purpose,
        message: request.body.message,
        signature: request.body.signature as Hex,
        cookie: readLoginCookie(request, deps.issuer),
        signedIn,
      });
      if (outcome.kind === 'linked') return { linked: outcome.subject } as never; // only when purpose is 'link'
      const session = await sessions.establish(request, reply, outcome.start);
      return sessionStarted(session) as never; // only for 'sign_in'
    };
  const completeErrors = [
    'provider_not_available',
    'wallet_message_invalid',
    'wallet_signature_invalid',
    'wallet_contract_unverifiable',
    'chain_unavailable',
    'federated_signup_closed',
    'method_conflict',
    'rate_limited',
    'csrf_rejected',
  ] as const;
  const signInComplete = {
    summary: 'Finishes Sign-In with Ethereum with the signed message',
    tags: ['sign-in'],
    body: completeBody,
    response: { 200: SessionStarted, ...errorResponses(...completeErrors) },
  };
  app.post('/auth/web3/ethereum/complete', { schema: signInComplete, onRequest: sameOrigin }, complete('sign_in'));
  const linkComplete = {
    summary: 'Finishes linking a wallet with the signed message',
    tags: ['account'],
    security: SESSION,
    body: completeBody,
    response: {
      200: Type.Object(
        { linked: Type.String({ description: 'The wallet subject linked.' }) },
        { additionalProperties: false },
      ),
      ...errorResponses(...completeErrors, ...SIGNED_IN_ERRORS, 'self_service_disabled'),
    },
  };
  app.post(
    '/account/connections/ethereum/complete',
    { schema: linkComplete, preValidation: signedIn },
    complete('link'),
  );
};
