// Passkey routes (issue 20). Thin: validate, one call, shape the reply. Account routes need a full session (and,
// like the rest of account self-service, SPEC.md "Account self-service" availability); sign-in routes are bound to
// the login cookie. Every state change passes the CSRF rule (DESIGN.md "CSRF").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { randomToken } from '../../crypto/primitives.ts';
import { assertSelfServiceAvailable } from '../../delivery/status.ts';
import { assertSameOriginJson } from '../../http/csrf.ts';
import { type DocumentedError, errorResponses, SIGNED_IN_ERRORS } from '../../http/error-responses.ts';
import { noBody, SESSION } from '../../http/route-schema.ts';
import { Type } from '../../schema/type.ts';
import type { SessionHttp } from '../../session/http.ts';
import { SessionStarted, sessionStarted } from '../../session/route-schemas.ts';
import { attemptContext } from '../local/deps.ts';
import { clearLoginCookie, readLoginCookie, setLoginCookie } from '../local/login-cookie.ts';
import { LOGIN_TRANSACTION_SECONDS } from '../local/sign-in.ts';
import { CEREMONY_SECONDS } from './ceremony.ts';
import type { PasskeyDeps } from './deps.ts';
import { listMyPasskeys, removePasskey, renamePasskey } from './management.ts';
import { requireRecentAuthentication } from './recent-authentication.ts';
import { finishRegistration, startRegistration } from './registration.ts';
import { AuthenticationCredential, challengeId, passkeyName, password, RegistrationCredential } from './schemas.ts';
import { finishPasskeySignIn, startPasskeySignIn } from './sign-in.ts';

export interface PasskeyRouteOptions {
  deps: PasskeyDeps;
  sessions: SessionHttp;
}

const body = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
const params = body({ id: Type.String({ minLength: 1, maxLength: 20, pattern: '^[0-9]+$' }) });
const withPassword = Type.Union([body({ password: Type.Optional(password) }), Type.Null()]);

export const passkeyRoutes: FastifyPluginAsyncTypebox<PasskeyRouteOptions> = async (app, { deps, sessions }) => {
  const issuer = deps.config.server.issuer;
  const account = (request: FastifyRequest) => sessions.require(request);
  // A passkey is one of the second factors a session waiting for enrollment may add (docs/identity.md).
  const enrolling = (request: FastifyRequest) => sessions.require(request, { partial: 'enrollment' });
  // Before validation, as for the other account routes: a disabled service answers the same whatever was sent.
  const selfService = async () => assertSelfServiceAvailable(deps.config);
  const sameOrigin = async (request: FastifyRequest) => assertSameOriginJson(request, sessions.issuerOrigin);

  const accountDoc = (summary: string, ok: Record<number, TSchema>, ...errors: DocumentedError[]) => ({
    summary,
    tags: ['account'],
    security: SESSION,
    response: {
      ...ok,
      ...errorResponses(...SIGNED_IN_ERRORS, 'self_service_disabled', 'delivery_not_configured', ...errors),
    },
  });
  const Ceremony = Type.Object(
    {
      challenge_id: Type.String(),
      options: Type.Object({}, { additionalProperties: true, description: 'WebAuthn options (JSON) for the browser.' }),
      expires_in: Type.Integer(),
    },
    { additionalProperties: false },
  );
  const ceremony = accountDoc(
    'Starts registering a passkey: the WebAuthn creation options',
    { 200: Ceremony },
    'passkeys_disabled',
    'reauthentication_required',
    'reauthentication_failed',
    'rate_limited',
  );
  app.post(
    '/account/passkeys/options',
    { schema: { body: withPassword, ...ceremony }, onRequest: selfService },
    async (request) => {
      const session = await enrolling(request);
      await requireRecentAuthentication(deps, attemptContext(request), session, request.body?.password);
      const started = await startRegistration(deps, session);
      return { challenge_id: started.challengeId, options: started.options, expires_in: CEREMONY_SECONDS };
    },
  );

  app.post(
    '/account/passkeys',
    {
      schema: {
        body: body({ challenge_id: challengeId, name: Type.Optional(passkeyName), credential: RegistrationCredential }),
        ...accountDoc(
          'Finishes registering a passkey',
          { 201: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }) },
          'passkeys_disabled',
          'invalid_passkey_registration',
          'method_conflict',
        ),
      },
      onRequest: selfService,
    },
    async (request, reply) => {
      const session = await enrolling(request);
      const { challenge_id, name, credential } = request.body;
      const added = await finishRegistration(deps, attemptContext(request), session, {
        challengeId: challenge_id,
        name,
        credential,
      });
      return reply.code(201).send({ id: added.methodId, name: added.name });
    },
  );

  const listed = accountDoc('Lists your passkeys', {
    200: Type.Object(
      { passkeys: Type.Array(Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: true })) },
      { additionalProperties: false },
    ),
  });
  app.get('/account/passkeys', { schema: listed, onRequest: selfService }, async (request) => ({
    passkeys: await listMyPasskeys(deps, await account(request)),
  }));

  app.patch(
    '/account/passkeys/:id',
    {
      schema: {
        params,
        body: body({ name: passkeyName }),
        ...accountDoc(
          'Renames a passkey',
          { 200: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: true }) },
          'not_found',
        ),
      },
      onRequest: selfService,
    },
    async (request) =>
      renamePasskey(deps, attemptContext(request), await account(request), request.params.id, request.body.name),
  );

  app.delete(
    '/account/passkeys/:id',
    {
      schema: {
        params,
        body: withPassword,
        ...accountDoc(
          'Removes a passkey',
          { 204: noBody('Removed.') },
          'not_found',
          'last_sign_in_method',
          'reauthentication_required',
          'reauthentication_failed',
          'rate_limited',
        ),
      },
      onRequest: selfService,
    },
    async (request, reply) => {
      const session = await account(request);
      await removePasskey(deps, attemptContext(request), session, request.params.id, request.body?.password);
      return reply.code(204).send();
    },
  );

  app.post(
    '/auth/passkey/options',
    {
      schema: {
        summary: 'Starts a passkey sign-in: the WebAuthn request options',
        tags: ['sign-in'],
        body: body({ subject: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })) }),
        response: { 200: Ceremony, ...errorResponses('passkeys_disabled', 'rate_limited', 'csrf_rejected') },
      },
      onRequest: sameOrigin,
    },
    async (request, reply) => {
      // One login cookie per browser: a password sign-in already under way keeps working beside this ceremony.
      const cookie = readLoginCookie(request, issuer) ?? randomToken();
      // Without a subject, a session waiting for its second step asks for its own identity's passkeys.
      const partial = await sessions.current(request);
      const target = request.body.subject
        ? { subject: request.body.subject }
        : partial?.pending
          ? { identityId: partial.identityId }
          : null;
      const started = await startPasskeySignIn(deps, attemptContext(request), cookie, target);
      setLoginCookie(reply, issuer, cookie, LOGIN_TRANSACTION_SECONDS);
      return { challenge_id: started.challengeId, options: started.options, expires_in: CEREMONY_SECONDS };
    },
  );

  app.post(
    '/auth/passkey/verify',
    {
      schema: {
        summary: 'Finishes a passkey sign-in',
        tags: ['sign-in'],
        body: body({ challenge_id: challengeId, credential: AuthenticationCredential }),
        response: {
          200: SessionStarted,
          ...errorResponses(
            'passkeys_disabled',
            'invalid_credentials',
            'invalid_login_transaction',
            'user_verification_required',
            'rate_limited',
            'csrf_rejected',
          ),
        },
      },
      onRequest: sameOrigin,
    },
    async (request, reply) => {
      const start = await finishPasskeySignIn(deps, attemptContext(request), {
        challengeId: request.body.challenge_id,
        cookie: readLoginCookie(request, issuer),
        credential: request.body.credential,
      });
      clearLoginCookie(reply, issuer);
      const session = await sessions.establish(request, reply, start);
      return sessionStarted(session);
    },
  );
};
