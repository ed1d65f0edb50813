// Sign In With Farcaster over JSON (docs/identity.md "Sign In With Farcaster"): POST /auth/web3/farcaster/start opens
// a relay channel and answers the deep link (and a QR code of it) for the Farcaster app; the page then POSTs
// /auth/web3/farcaster/complete with the channel until it answers 200 (signed in) instead of 202 (still waiting).
// /account/connections/farcaster/start and /complete do the same to link a Farcaster account to the signed-in
// identity. Every route changes state on the strength of a cookie, so each passes the CSRF rule.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { randomToken } from '../../crypto/primitives.ts';
import { assertSameOriginJson } from '../../http/csrf.ts';
import { GatehouseError } from '../../http/errors.ts';
import type { SessionHttp } from '../../session/http.ts';
import { readLoginCookie, setLoginCookie } from '../local/login-cookie.ts';
import { LOGIN_TRANSACTION_SECONDS } from '../local/sign-in.ts';
import type { FarcasterDeps } from './deps.ts';
import { pollFarcaster, startFarcaster } from './sign-in-with-farcaster.ts';
import type { Purpose } from './store.ts';

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

  const start = (purpose: Purpose) => async (request: FastifyRequest, reply: FastifyReply) => {
    const identityId = purpose === 'link' ? await linking(request) : null;
    const cookie = readLoginCookie(request, deps.issuer) ?? randomToken();
    const started = await startFarcaster(deps, facts(request), { purpose, identityId, cookie });
    setLoginCookie(reply, deps.issuer, cookie, LOGIN_TRANSACTION_SECONDS);
    // qrcode is loaded on first use, not at startup (several MB resident on every node; see login/local/routes.ts).
    const { default: QRCode } = await import('qrcode');
    const qrSvg = await QRCode.toString(started.url, { type: 'svg', margin: 2 });
    return { channel: started.channel, url: started.url, qr_svg: qrSvg, expires_in: started.expiresIn };
  };
  app.post('/auth/web3/farcaster/start', { schema: { body: startBody }, onRequest: sameOrigin }, start('sign_in'));
  app.post(
    '/account/connections/farcaster/start',
    { schema: { body: startBody }, onRequest: sameOrigin },
    start('link'),
  );

  const complete =
    (purpose: Purpose) =>
    async (request: FastifyRequest<{ Body: Type.Static<typeof completeBody> }>, reply: FastifyReply) => {
      const signedIn =
        purpose === 'link' ? await linking(request) : ((await sessions.current(request))?.identityId ?? null);
      const outcome = await pollFarcaster(deps, facts(request), {
        purpose,
        channel: request.body.channel,
        cookie: readLoginCookie(request, deps.issuer),
        signedIn,
      });
      if (outcome.kind === 'pending') return reply.code(202).send({ state: 'pending' });
      if (outcome.kind === 'linked') return { linked: outcome.subject };
      const session = await sessions.establish(request, reply, outcome.start);
      return { aal: session.aal, amr: session.amr, enrollment_required: false };
    };
  app.post(
    '/auth/web3/farcaster/complete',
    { schema: { body: completeBody }, onRequest: sameOrigin },
    complete('sign_in'),
  );
  app.post(
    '/account/connections/farcaster/complete',
    { schema: { body: completeBody }, onRequest: sameOrigin },
    complete('link'),
  );
};
