// The second step of a partial session (docs/identity.md "Second step"): what it waits for, and the code that
// finishes it. The passkey alternative is an ordinary passkey sign-in (src/login/passkey/routes.ts), whose options
// name the partial session's own passkeys.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/error-responses.ts';
import { InvalidRequest } from '../../http/errors.ts';
import { SESSION } from '../../http/route-schema.ts';
import { Type } from '../../schema/type.ts';
import type { SessionHttp } from '../../session/http.ts';
import { SessionStarted, sessionStarted } from '../../session/route-schemas.ts';
import { attemptContext, type LocalLoginDeps } from '../local/deps.ts';
import { DEVICE_COOKIE_SECONDS } from '../local/known-device.ts';
import { readDeviceCookie, setDeviceCookie } from '../local/login-cookie.ts';
import { finishSecondFactor } from './second-factor.ts';
import { listSecondFactors } from './second-factors.ts';

export interface StepUpRouteOptions {
  deps: LocalLoginDeps;
  sessions: SessionHttp;
}

const Pending = Type.Object(
  {
    pending: Type.Union([Type.Enum(['enrollment', 'second_factor']), Type.Null()], {
      description: 'The step the session waits for; null when it is complete.',
    }),
    methods: Type.Array(Type.Enum(['totp', 'recovery_code', 'passkey']), {
      description: 'The second factors the account holds, any of which finishes a `second_factor` step.',
    }),
  },
  { additionalProperties: false },
);

export const stepUpRoutes: FastifyPluginAsyncTypebox<StepUpRouteOptions> = async (app, { deps, sessions }) => {
  const describe = {
    summary: "What the caller's session still waits for, and the second factors that can finish it",
    tags: ['sign-in'],
    security: SESSION,
    response: { 200: Pending, ...errorResponses('login_required') },
  };
  app.get('/auth/second-factor', { schema: describe }, async (request) => {
    const session = await sessions.require(request, { partial: 'any' });
    return { pending: session.pending, methods: await listSecondFactors(deps.sql, session.identityId) };
  });

  const finish = {
    summary: 'Finishes a sign-in that waits for its second factor, with a TOTP code or a recovery code',
    tags: ['sign-in'],
    security: SESSION,
    body: Type.Object(
      {
        totp: Type.Optional(Type.String({ pattern: '^[0-9]{6}$' })),
        recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
      },
      { additionalProperties: false },
    ),
    response: {
      200: SessionStarted,
      ...errorResponses(
        'invalid_request',
        'login_required',
        'enrollment_required',
        'csrf_rejected',
        'second_factor_not_pending',
        'invalid_totp_code',
        'rate_limited',
      ),
    },
  };
  app.post('/auth/second-factor', { schema: finish }, async (request, reply) => {
    const { totp, recovery_code } = request.body;
    if ((totp === undefined) === (recovery_code === undefined))
      throw new InvalidRequest('Send totp or recovery_code, exactly one');
    const session = await sessions.require(request, { partial: 'second_factor' });
    const code = totp !== undefined ? { totp } : { recoveryCode: recovery_code as string };
    const device = readDeviceCookie(request, deps.issuer);
    const done = await finishSecondFactor(deps, attemptContext(request), session, code, device);
    setDeviceCookie(reply, deps.issuer, done.deviceCookie, DEVICE_COOKIE_SECONDS);
    return sessionStarted(await sessions.establish(request, reply, done.start));
  });
};
