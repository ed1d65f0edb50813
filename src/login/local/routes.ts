// Local sign-in and enrollment routes. Thin: validate, one call, shape the reply. Every route here changes state on
// the strength of a cookie (login transaction or session), so each passes the CSRF rule (DESIGN.md "CSRF").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assertSameOriginJson } from '../../http/csrf.ts';
import { errorResponses } from '../../http/error-responses.ts';
import { InvalidRequest } from '../../http/errors.ts';
import { SESSION } from '../../http/route-schema.ts';
import { normalizeEmail } from '../../identity/ids.ts';
import { Type } from '../../schema/type.ts';
import type { SessionHttp } from '../../session/http.ts';
import { SessionStarted, sessionStarted } from '../../session/route-schemas.ts';
import { connectionForSubject, samlPaths } from '../saml/connection.ts';
import { attemptContext, type LocalLoginDeps } from './deps.ts';
import { completeTotpEnrollment, enrollmentAccount, enrollWithToken, startTotpEnrollment } from './enrollment.ts';
import { DEVICE_COOKIE_SECONDS } from './known-device.ts';
import {
  clearLoginCookie,
  readDeviceCookie,
  readLoginCookie,
  setDeviceCookie,
  setLoginCookie,
} from './login-cookie.ts';
import { createLocalSignIn } from './sign-in.ts';

export interface LocalLoginRouteOptions {
  deps: LocalLoginDeps;
  sessions: SessionHttp;
}

const body = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const opaqueId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const password = Type.String({ minLength: 1, maxLength: 1024 });

export const localLoginRoutes: FastifyPluginAsyncTypebox<LocalLoginRouteOptions> = async (app, { deps, sessions }) => {
  const signIn = createLocalSignIn(deps);
  const sameOrigin = async (request: FastifyRequest) => assertSameOriginJson(request, sessions.issuerOrigin);

  app.post(
    '/auth/login',
    {
      schema: {
        summary: 'Starts a password sign-in for an email address or username',
        tags: ['sign-in'],
        body: body({ subject: Type.String({ minLength: 1, maxLength: 254 }) }),
        response: {
          200: Type.Union([
            Type.Object(
              { transaction_id: Type.String(), challenge_id: Type.String(), expires_in: Type.Integer() },
              { additionalProperties: false },
            ),
            Type.Object(
              {
                sign_in_url: Type.String({
                  description: 'A SAML domain: where the browser goes to sign in at its IdP.',
                }),
              },
              { additionalProperties: false },
            ),
          ]),
          ...errorResponses('rate_limited', 'csrf_rejected'),
        },
      },
      onRequest: sameOrigin,
    },
    async (request, reply) => {
      // A company domain with single sign-on: its identity provider, not a password here, decides who this is.
      const saml = connectionForSubject(deps.samlConnections ?? new Map(), normalizeEmail(request.body.subject));
      if (saml) return { sign_in_url: samlPaths(saml.id).start };
      const started = await signIn.start(attemptContext(request), request.body.subject);
      setLoginCookie(reply, deps.issuer, started.cookie, started.expiresIn);
      return {
        transaction_id: started.transactionId,
        challenge_id: started.challengeId,
        expires_in: started.expiresIn,
      };
    },
  );

  app.post(
    '/auth/mfa/verify',
    {
      schema: {
        body: body({
          transaction_id: opaqueId,
          challenge_id: opaqueId,
          password,
          totp: Type.Optional(Type.String({ pattern: '^[0-9]{6}$' })),
          recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
        }),
        summary: 'Finishes a password sign-in with the password and, when enrolled, a TOTP or recovery code',
        tags: ['sign-in'],
        response: {
          200: SessionStarted,
          ...errorResponses(
            'invalid_login_transaction',
            'invalid_credentials',
            'invalid_totp_code',
            'rate_limited',
            'csrf_rejected',
            'directory_unavailable',
            'directory_signup_closed',
          ),
        },
      },
      onRequest: sameOrigin,
    },
    async (request, reply) => {
      const { transaction_id, challenge_id, totp, recovery_code } = request.body;
      if (totp !== undefined && recovery_code !== undefined)
        throw new InvalidRequest('Send totp or recovery_code, not both');
      const { session: start, deviceCookie } = await signIn.verify(attemptContext(request), {
        transactionId: transaction_id,
        challengeId: challenge_id,
        cookie: readLoginCookie(request, deps.issuer),
        deviceCookie: readDeviceCookie(request, deps.issuer),
        password: request.body.password,
        totp,
        recoveryCode: recovery_code,
      });
      clearLoginCookie(reply, deps.issuer);
      if (deviceCookie) setDeviceCookie(reply, deps.issuer, deviceCookie, DEVICE_COOKIE_SECONDS);
      const session = await sessions.establish(request, reply, start);
      return sessionStarted(session);
    },
  );

  app.post(
    '/auth/enroll',
    {
      schema: {
        summary: 'Sets the password from an enrollment link and signs in',
        tags: ['sign-in'],
        body: body({ token: opaqueId, password }),
        response: {
          200: SessionStarted,
          ...errorResponses(
            'invalid_enrollment_token',
            'weak_password',
            'method_conflict',
            'rate_limited',
            'csrf_rejected',
          ),
        },
      },
      onRequest: sameOrigin,
    },
    async (request, reply) => {
      const start = await enrollWithToken(deps, attemptContext(request), request.body);
      const session = await sessions.establish(request, reply, start);
      return sessionStarted(session);
    },
  );

  app.post(
    '/auth/enroll/account',
    {
      schema: {
        summary: 'Names the account an enrollment link sets up, without using the link',
        tags: ['sign-in'],
        body: body({ token: opaqueId }),
        response: {
          200: Type.Object({ email: Type.String(), display_name: Type.String() }, { additionalProperties: false }),
          ...errorResponses('invalid_enrollment_token', 'csrf_rejected'),
        },
      },
      onRequest: sameOrigin,
    },
    async (request, reply) => {
      const account = await enrollmentAccount(deps, request.body.token);
      reply.header('cache-control', 'no-store');
      return { email: account.email, display_name: account.displayName };
    },
  );

  const totpStart = {
    summary: 'Starts TOTP enrollment: the secret, its otpauth URI and a QR code',
    tags: ['account'],
    security: SESSION,
    body: body({}),
    response: {
      200: Type.Object(
        {
          otpauth_uri: Type.String(),
          secret: Type.String(),
          qr_svg: Type.String({ description: 'An SVG image.' }),
          account: Type.String({ description: 'The account the authenticator app will list: its primary address.' }),
        },
        { additionalProperties: false },
      ),
      ...errorResponses('login_required', 'second_factor_required', 'csrf_rejected', 'totp_already_enrolled'),
    },
  };
  app.post('/account/totp/start', { schema: totpStart }, async (request) => {
    const session = await sessions.require(request, { partial: 'enrollment' });
    const started = await startTotpEnrollment(deps, attemptContext(request), session);
    // The QR code is drawn here, not in the page, so the page needs no QR library and no inline data from elsewhere.
    // qrcode is loaded on first enrollment, not at startup: it and pngjs cost several MB resident for every node.
    const { default: QRCode } = await import('qrcode');
    const qrSvg = await QRCode.toString(started.otpauthUri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { otpauth_uri: started.otpauthUri, secret: started.secret, qr_svg: qrSvg, account: started.account };
  });

  app.post(
    '/account/totp/complete',
    {
      schema: {
        summary: 'Finishes TOTP enrollment with a first code; answers the recovery codes once',
        tags: ['account'],
        security: SESSION,
        body: body({ code: Type.String({ pattern: '^[0-9]{6}$' }) }),
        response: {
          200: Type.Object(
            { recovery_codes: Type.Array(Type.String()), aal: Type.String(), amr: Type.Array(Type.String()) },
            { additionalProperties: false },
          ),
          ...errorResponses(
            'login_required',
            'second_factor_required',
            'csrf_rejected',
            'invalid_totp_code',
            'totp_already_enrolled',
            'totp_enrollment_not_started',
            'rate_limited',
          ),
        },
      },
    },
    async (request, reply) => {
      const session = await sessions.require(request, { partial: 'enrollment' });
      const done = await completeTotpEnrollment(deps, attemptContext(request), session, request.body.code);
      // A privilege change (aal1 → aal2): a new session id, the old one revoked (DESIGN.md "Session cookie").
      const next = await sessions.establish(request, reply, done.start);
      return { recovery_codes: done.recoveryCodes, aal: next.aal, amr: next.amr };
    },
  );
};
