// Account self-service (SPEC.md "Endpoints"): every route first checks that self-service is enabled and delivery
// configured (self_service_disabled / delivery_not_configured), then parses, makes one call and replies.
// Signed-in routes go through sessions.require, which also applies the CSRF rule to state changes.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { assertSelfServiceAvailable } from '../delivery/status.ts';
import { assertSameOriginJson } from '../http/csrf.ts';
import { noBody } from '../http/route-schema.ts';
import { LOCALES } from '../i18n/locales.ts';
import { attemptContext } from '../login/local/deps.ts';
import { Type } from '../schema/type.ts';
import type { SessionHttp } from '../session/http.ts';
import type { Session } from '../session/types.ts';
import { listConnections, removeConnection } from './connections.ts';
import type { AccountDeps } from './deps.ts';
import { completeEmailChange, startEmailChange } from './email-change.ts';
import { verifySignupEmail } from './email-verification.ts';
import { listMyGrants, revokeMyGrant } from './grants.ts';
import { changePassword } from './password-change.ts';
import { requestPasswordReset, resetPassword } from './password-reset.ts';
import { changeProfile, readProfile } from './profile.ts';
import * as answers from './response-schemas.ts';
import { anonymousDoc, signedInDoc, VERIFICATION_ERRORS } from './response-schemas.ts';
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
      schema: {
        body: body({ email, password, display_name: Type.String({ minLength: 1, maxLength: 200 }) }),
        ...anonymousDoc(
          'Signs up with email and password; a verification message follows',
          { 201: answers.SignedUp },
          'weak_password',
          'rate_limited',
        ),
      },
    },
    async (request, reply) => {
      const { identityId } = await signUp(deps, attemptContext(request), {
        email: request.body.email,
        password: request.body.password,
        displayName: request.body.display_name,
        locale: await deps.localeOf(request),
      });
      return reply.code(201).send({ identity_id: identityId, verification_required: true });
    },
  );

  // `password` or `new_password` says which password the account keeps (signup-password.ts); SPEC's bare
  // {verification_id, secret} still verifies, leaving a password to be set by a reset.
  const signupPassword = (description: string) =>
    Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description }));
  const verify = {
    body: body({
      ...verification,
      password: signupPassword("The sign-up's password, typed again; it must match (else signup_password_mismatch)."),
      new_password: signupPassword(
        "A password of the link holder's choosing, in place of the sign-up's. Without either field the account is " +
          'verified with no usable password (password_set: false) until a reset sets one.',
      ),
    }),
    ...anonymousDoc(
      'Verifies the email address of a sign-up and confirms or chooses its password',
      { 200: answers.EmailVerified },
      ...VERIFICATION_ERRORS,
      'signup_password_mismatch',
      'weak_password',
    ),
  };
  app.post('/account/email/verify', { onRequest: anonymous, schema: verify }, async (request) => {
    const { identityId, passwordSet } = await verifySignupEmail(deps, attemptContext(request), {
      verificationId: request.body.verification_id,
      secret: request.body.secret,
      password: request.body.password,
      newPassword: request.body.new_password,
    });
    return { identity_id: identityId, email_verified: true, password_set: passwordSet };
  });

  app.post(
    '/account/password/forgot',
    {
      onRequest: anonymous,
      schema: {
        body: body({ email }),
        ...anonymousDoc(
          'Sends a password reset message if the address is registered',
          { 202: answers.ResetSent },
          'rate_limited',
        ),
      },
    },
    async (request, reply) => {
      await requestPasswordReset(deps, attemptContext(request), request.body.email, await deps.localeOf(request));
      return reply.code(202).send({ status: 'sent_if_registered' });
    },
  );

  app.post(
    '/account/password/reset',
    {
      onRequest: anonymous,
      schema: {
        body: body({ ...verification, password }),
        ...anonymousDoc(
          'Sets a new password with a reset message',
          { 200: answers.PasswordReset },
          ...VERIFICATION_ERRORS,
          'weak_password',
        ),
      },
    },
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
    {
      schema: {
        body: body({ current_password: password, new_password: password }),
        ...signedInDoc(
          'Changes your password; your other sessions end',
          { 200: answers.PasswordChanged },
          'reauthentication_failed',
          'weak_password',
          'rate_limited',
        ),
      },
    },
    async (request) => {
      const result = await changePassword(deps, attemptContext(request), await signedIn(request), {
        currentPassword: request.body.current_password,
        newPassword: request.body.new_password,
      });
      return { sessions_revoked: result.sessionsRevoked };
    },
  );

  app.get('/account/profile', { schema: signedInDoc('Your profile', { 200: answers.Profile }) }, async (request) =>
    readProfile(deps, (await signedIn(request)).identityId),
  );

  app.patch(
    '/account/profile',
    {
      schema: {
        body: body({
          display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
          locale: Type.Optional(
            Type.Union([Type.Enum([...LOCALES]), Type.Null()], {
              description: 'The language of hosted pages and messages for you; null follows the browser.',
            }),
          ),
        }),
        ...signedInDoc('Changes your profile', { 200: answers.Profile }),
      },
    },
    async (request) =>
      changeProfile(deps, attemptContext(request), (await signedIn(request)).identityId, {
        displayName: request.body.display_name,
        locale: request.body.locale,
      }),
  );

  app.post(
    '/account/email/change',
    {
      schema: {
        // Without `password`, a sign-in within the last ten minutes confirms it is the person (any method).
        body: body({ new_email: email, password: Type.Optional(password) }),
        ...signedInDoc(
          'Starts changing your email address; a verification message goes to the new one',
          { 202: answers.EmailChangeStarted },
          'reauthentication_required',
          'reauthentication_failed',
          'email_taken',
          'rate_limited',
        ),
      },
    },
    async (request, reply) => {
      await startEmailChange(deps, attemptContext(request), await signedIn(request), {
        newEmail: request.body.new_email,
        password: request.body.password,
        locale: await deps.localeOf(request),
      });
      return reply.code(202).send({ verification_required: true });
    },
  );

  app.post(
    '/account/email/change/verify',
    {
      schema: {
        body: body(verification),
        ...signedInDoc(
          'Finishes an email change; only the account that asked for it can',
          { 200: answers.EmailChanged },
          ...VERIFICATION_ERRORS,
          'email_taken',
        ),
      },
    },
    async (request) =>
      completeEmailChange(deps, attemptContext(request), (await signedIn(request)).identityId, {
        verificationId: request.body.verification_id,
        secret: request.body.secret,
        locale: await deps.localeOf(request),
      }),
  );

  app.get(
    '/account/totp',
    { schema: signedInDoc('Whether TOTP is enrolled', { 200: answers.TotpStatus }) },
    async (request) => totpStatus(deps, (await signedIn(request)).identityId),
  );

  const totpDisable = {
    body: body({ password, code }),
    ...signedInDoc(
      'Removes TOTP; the session then waits for enrollment again (or for a passkey the account has)',
      { 200: answers.TotpDisabled },
      'reauthentication_failed',
      'totp_not_enrolled',
      'rate_limited',
    ),
  };
  app.post('/account/totp/disable', { schema: totpDisable }, async (request, reply) => {
    // One factor is left in this session; with a passkey on the account it waits for that, else for enrollment.
    const next: { session?: Session } = {};
    await disableTotp(deps, attemptContext(request), await signedIn(request), request.body, async (tx, start) => {
      next.session = await sessions.establish(request, reply, start, tx);
    });
    return { enrollment_required: next.session?.pending === 'enrollment' };
  });

  const recoveryCodes = {
    body: body({ password, code }),
    ...signedInDoc(
      'Replaces your recovery codes',
      { 200: answers.RecoveryCodes },
      'reauthentication_failed',
      'totp_not_enrolled',
      'rate_limited',
    ),
  };
  app.post('/auth/recovery-codes', { schema: recoveryCodes }, async (request) => ({
    recovery_codes: await regenerateRecoveryCodes(deps, attemptContext(request), await signedIn(request), request.body),
  }));

  app.get(
    '/account/connections',
    { schema: signedInDoc('Your sign-in methods', { 200: answers.Connections }) },
    async (request) => ({
      connections: await listConnections(deps, (await signedIn(request)).identityId),
    }),
  );

  const removal = Type.Union([
    body({ password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })) }),
    Type.Null(),
  ]);
  const removeConnectionSchema = {
    params: id,
    body: removal,
    ...signedInDoc(
      'Removes a sign-in method',
      { 204: noBody('Removed.') },
      'not_found',
      'last_sign_in_method',
      'reauthentication_required',
      'reauthentication_failed',
      'rate_limited',
    ),
  };
  app.post('/account/connections/:id/remove', { schema: removeConnectionSchema }, async (request, reply) => {
    const password = request.body?.password;
    await removeConnection(deps, attemptContext(request), await signedIn(request), request.params.id, password);
    return reply.code(204).send();
  });

  app.get(
    '/account/sessions',
    { schema: signedInDoc('Your sessions', { 200: answers.Sessions }) },
    async (request) => ({ sessions: await listMySessions(deps, await signedIn(request)) }),
  );

  const revokeSession = {
    params: id,
    body: empty,
    ...signedInDoc('Ends one of your sessions', { 204: noBody('Ended.') }, 'not_found'),
  };
  app.post('/account/sessions/:id/revoke', { schema: revokeSession }, async (request, reply) => {
    await revokeMySession(deps, attemptContext(request), await signedIn(request), request.params.id);
    return reply.code(204).send();
  });

  const revokeOthers = { body: empty, ...signedInDoc('Ends your other sessions', { 200: answers.OthersRevoked }) };
  app.post('/account/sessions/revoke-others', { schema: revokeOthers }, async (request) => ({
    revoked: await revokeMyOtherSessions(deps, attemptContext(request), await signedIn(request)),
  }));

  app.get(
    '/account/grants',
    { schema: signedInDoc('The applications you gave access', { 200: answers.Grants }) },
    async (request) => ({ grants: await listMyGrants(deps, await signedIn(request)) }),
  );

  const revokeGrant = {
    params: id,
    body: empty,
    ...signedInDoc("Revokes an application's access", { 204: noBody('Revoked.') }, 'not_found'),
  };
  app.post('/account/grants/:id/revoke', { schema: revokeGrant }, async (request, reply) => {
    await revokeMyGrant(deps, attemptContext(request), await signedIn(request), request.params.id);
    return reply.code(204).send();
  });
};
