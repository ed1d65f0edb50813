// Account self-service (SPEC.md "Endpoints"): every route first checks that self-service is enabled and delivery
// configured (self_service_disabled / delivery_not_configured), then parses, makes one call and replies.
// Signed-in routes go through sessions.require, which also applies the CSRF rule to state changes.
import { type FastifyPluginAsyncTypebox, Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assertSelfServiceAvailable } from '../delivery/status.ts';
import { assertSameOriginJson } from '../http/csrf.ts';
import { attemptContext } from '../login/local/deps.ts';
import type { SessionHttp } from '../session/http.ts';
import { listConnections, removeConnection } from './connections.ts';
import type { AccountDeps } from './deps.ts';
import { completeEmailChange, startEmailChange } from './email-change.ts';
import { verifySignupEmail } from './email-verification.ts';
import { listMyGrants, revokeMyGrant } from './grants.ts';
import { changePassword } from './password-change.ts';
import { requestPasswordReset, resetPassword } from './password-reset.ts';
import { changeProfile, readProfile } from './profile.ts';
import { listMySessions, revokeMyOtherSessions, revokeMySession } from './sessions.ts';
import { signUp } from './signup.ts';
import { disableTotp, regenerateRecoveryCodes, totpStatus } from './totp-management.ts';

export interface AccountRouteOptions {
  deps: AccountDeps;
  sessions: SessionHttp;
}

const body = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
// No `format: 'email'`: the address rule is account/address.ts (stricter, and it knows whether the instance takes
// `name@localhost`), so a mistyped address gets one sentence from one place.
const email = Type.String({ minLength: 3, maxLength: 254 });
const password = Type.String({ minLength: 1, maxLength: 1024 });
const verification = {
  verification_id: Type.String({ minLength: 1, maxLength: 128 }),
  secret: Type.String({ minLength: 1, maxLength: 128 }),
};
const code = Type.String({ pattern: '^[0-9]{6}$' });
const id = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }) },
  { additionalProperties: false },
);
const empty = Type.Union([body({}), Type.Null()]);

export const accountRoutes: FastifyPluginAsyncTypebox<AccountRouteOptions> = async (app, { deps, sessions }) => {
  // Runs before validation, so a disabled service answers the same whatever was sent.
  app.addHook('onRequest', async () => assertSelfServiceAvailable(deps.config));
  const anonymous = async (request: FastifyRequest) => assertSameOriginJson(request, sessions.issuerOrigin);
  const signedIn = (request: FastifyRequest) => sessions.require(request);

  app.post(
    '/account/signup',
    {
      onRequest: anonymous,
      schema: { body: body({ email, password, display_name: Type.String({ minLength: 1, maxLength: 200 }) }) },
    },
    async (request, reply) => {
      const { identityId } = await signUp(deps, attemptContext(request), {
        email: request.body.email,
        password: request.body.password,
        displayName: request.body.display_name,
      });
      return reply.code(201).send({ identity_id: identityId, verification_required: true });
    },
  );

  app.post('/account/email/verify', { onRequest: anonymous, schema: { body: body(verification) } }, async (request) => {
    const { identityId } = await verifySignupEmail(deps, attemptContext(request), {
      verificationId: request.body.verification_id,
      secret: request.body.secret,
    });
    return { identity_id: identityId, email_verified: true };
  });

  app.post(
    '/account/password/forgot',
    { onRequest: anonymous, schema: { body: body({ email }) } },
    async (request, reply) => {
      await requestPasswordReset(deps, attemptContext(request), request.body.email);
      return reply.code(202).send({ status: 'sent_if_registered' });
    },
  );

  app.post(
    '/account/password/reset',
    { onRequest: anonymous, schema: { body: body({ ...verification, password }) } },
    async (request) => {
      await resetPassword(deps, attemptContext(request), {
        verificationId: request.body.verification_id,
        secret: request.body.secret,
        password: request.body.password,
      });
      return { status: 'password_reset' };
    },
  );

  app.post(
    '/account/password/change',
    { schema: { body: body({ current_password: password, new_password: password }) } },
    async (request) => {
      const result = await changePassword(deps, attemptContext(request), await signedIn(request), {
        currentPassword: request.body.current_password,
        newPassword: request.body.new_password,
      });
      return { sessions_revoked: result.sessionsRevoked };
    },
  );

  app.get('/account/profile', async (request) => readProfile(deps, (await signedIn(request)).identityId));

  app.patch(
    '/account/profile',
    { schema: { body: body({ display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }) } },
    async (request) =>
      changeProfile(deps, attemptContext(request), (await signedIn(request)).identityId, {
        displayName: request.body.display_name,
      }),
  );

  app.post(
    '/account/email/change',
    { schema: { body: body({ new_email: email, password }) } },
    async (request, reply) => {
      await startEmailChange(deps, attemptContext(request), (await signedIn(request)).identityId, {
        newEmail: request.body.new_email,
        password: request.body.password,
      });
      return reply.code(202).send({ verification_required: true });
    },
  );

  app.post(
    '/account/email/change/verify',
    { onRequest: anonymous, schema: { body: body(verification) } },
    async (request) =>
      completeEmailChange(deps, attemptContext(request), {
        verificationId: request.body.verification_id,
        secret: request.body.secret,
      }),
  );

  app.get('/account/totp', async (request) => totpStatus(deps, (await signedIn(request)).identityId));

  app.post('/account/totp/disable', { schema: { body: body({ password, code }) } }, async (request, reply) => {
    await disableTotp(deps, attemptContext(request), await signedIn(request), request.body, (tx, start) =>
      sessions.establish(request, reply, start, tx),
    );
    return { enrollment_required: true };
  });

  app.post('/auth/recovery-codes', { schema: { body: body({ password, code }) } }, async (request) => ({
    recovery_codes: await regenerateRecoveryCodes(deps, attemptContext(request), await signedIn(request), request.body),
  }));

  app.get('/account/connections', async (request) => ({
    connections: await listConnections(deps, (await signedIn(request)).identityId),
  }));

  const removal = Type.Union([
    body({ password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })) }),
    Type.Null(),
  ]);
  app.post('/account/connections/:id/remove', { schema: { params: id, body: removal } }, async (request, reply) => {
    const password = request.body?.password;
    await removeConnection(deps, attemptContext(request), await signedIn(request), request.params.id, password);
    return reply.code(204).send();
  });

  app.get('/account/sessions', async (request) => ({ sessions: await listMySessions(deps, await signedIn(request)) }));

  app.post('/account/sessions/:id/revoke', { schema: { params: id, body: empty } }, async (request, reply) => {
    await revokeMySession(deps, attemptContext(request), await signedIn(request), request.params.id);
    return reply.code(204).send();
  });

  app.post('/account/sessions/revoke-others', { schema: { body: empty } }, async (request) => ({
    revoked: await revokeMyOtherSessions(deps, attemptContext(request), await signedIn(request)),
  }));

  app.get('/account/grants', async (request) => ({ grants: await listMyGrants(deps, await signedIn(request)) }));

  app.post('/account/grants/:id/revoke', { schema: { params: id, body: empty } }, async (request, reply) => {
    await revokeMyGrant(deps, attemptContext(request), await signedIn(request), request.params.id);
    return reply.code(204).send();
  });
};
