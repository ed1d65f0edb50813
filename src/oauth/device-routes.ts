// The device authorization grant's routes (RFC 8628): the device authorization endpoint clients call (form body, like
// the token endpoint: CORS for browser clients, never cached), and the JSON API of the hosted /device page, behind
// the session cookie (sessions.require: a partial session is sent through its second step first, and state changes
// pass the CSRF rule). The token endpoint's side is grants/device-code.ts.
import type { FastifyInstance } from 'fastify';
import { errorResponses, SIGNED_IN_ERRORS } from '../http/error-responses.ts';
import { CLIENT, SESSION } from '../http/route-schema.ts';
import { attemptContext } from '../login/local/deps.ts';
import { Type } from '../schema/type.ts';
import type { SessionHttp } from '../session/http.ts';
import { authenticateClient, type ClientAuthDeps, rejectAuthorizationHeader } from './client-auth.ts';
import { allowPreflight, corsHeaders } from './cors.ts';
import {
  approvingAccount,
  type DeviceApprovalDeps,
  decideDeviceRequest,
  showDeviceRequest,
} from './device-approval.ts';
import { type DeviceAuthorizationDeps, startDeviceAuthorization } from './device-authorization.ts';
import { DEVICE_KINDS } from './device-description.ts';
import { formParams } from './form.ts';
import { DeviceAuthorizationAnswer, DeviceAuthorizationErrors, DeviceAuthorizationForm } from './route-schemas.ts';

export type DeviceRouteDeps = DeviceAuthorizationDeps & DeviceApprovalDeps & ClientAuthDeps & { sessions: SessionHttp };

const closed = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
/** Generous for what people type (spaces, dashes); normalisation decides whether it can be a code at all. */
const UserCode = Type.String({ minLength: 1, maxLength: 32 });
const DeviceRequest = closed({
  user_code: Type.String({ description: 'The user code, as XXXX-XXXX.' }),
  client_name: Type.String(),
  device: closed({
    kind: Type.Union(DEVICE_KINDS.map((k) => Type.Literal(k))),
    name: Type.Union([Type.String(), Type.Null()], {
      description: 'What the device says it is (its User-Agent, in words); a claim, not proof.',
    }),
  }),
  scopes: Type.Array(Type.String()),
  resource_names: Type.Record(Type.String(), Type.Array(Type.String())),
  requested_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
});
const signedIn = (summary: string, ok: Record<number, Type.TSchema>, ...errors: Parameters<typeof errorResponses>) => ({
  summary,
  tags: ['oauth'],
  security: SESSION,
  response: { ...ok, ...errorResponses(...SIGNED_IN_ERRORS, 'csrf_rejected', ...errors) },
});

export async function deviceRoutes(app: FastifyInstance, deps: DeviceRouteDeps): Promise<void> {
  allowPreflight(app, '/oauth/device_authorization', 'POST');
  const authorization = {
    summary: 'Device authorization endpoint (RFC 8628 §3.1): a device code and a user code for the person to approve',
    tags: ['oauth'],
    security: CLIENT,
    handlerParses: { form: DeviceAuthorizationForm },
    response: { 200: DeviceAuthorizationAnswer, ...DeviceAuthorizationErrors },
  };
  app.post('/oauth/device_authorization', { onSend: corsHeaders, schema: authorization }, async (request, reply) => {
    rejectAuthorizationHeader(request.headers.authorization);
    const form = formParams(request);
    const context = attemptContext(request);
    const client = await authenticateClient(deps, form, context);
    const started = await startDeviceAuthorization(deps, client, form, request.headers['user-agent'], context);
    return reply.header('cache-control', 'no-store').send(started);
  });

  const account = signedIn('Who is signed in on the /device page', {
    200: closed({ name: Type.String(), email: Type.Union([Type.String(), Type.Null()]) }),
  });
  app.get('/oauth/device/account', { schema: account }, async (request, reply) =>
    reply.header('cache-control', 'no-store').send(await approvingAccount(deps, await deps.sessions.require(request))),
  );

  const lookup = {
    body: closed({ user_code: UserCode }),
    ...signedIn(
      'The device request a user code stands for',
      { 200: DeviceRequest },
      'invalid_user_code',
      'rate_limited',
    ),
  };
  app.post<{ Body: { user_code: string } }>('/oauth/device/lookup', { schema: lookup }, async (request, reply) => {
    const session = await deps.sessions.require(request);
    const view = await showDeviceRequest(deps, session, request.body.user_code, attemptContext(request));
    return reply.header('cache-control', 'no-store').send(view);
  });

  const decision = {
    body: closed({ user_code: UserCode, decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]) }),
    ...signedIn(
      'Approves or denies a device request',
      {
        200: closed({
          status: Type.Union([Type.Literal('approved'), Type.Literal('denied')]),
          client_name: Type.String(),
        }),
      },
      'invalid_user_code',
      'rate_limited',
    ),
  };
  app.post<{ Body: { user_code: string; decision: 'approve' | 'deny' } }>(
    '/oauth/device/decision',
    { schema: decision },
    async (request, reply) => {
      const session = await deps.sessions.require(request);
      const { user_code, decision: answer } = request.body;
      const decided = await decideDeviceRequest(
        deps,
        session,
        user_code,
        answer === 'approve',
        attemptContext(request),
      );
      return reply.header('cache-control', 'no-store').send(decided);
    },
  );
}
