// POST /auth/logout ends the caller's own session with a single UPDATE (session/store.ts), so every node refuses the
// cookie on its next request. An owner ending every session of an identity is an admin route (admin/identities.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Audit } from '../audit/audit.ts';
import { errorResponses } from '../http/error-responses.ts';
import { noBody, SESSION } from '../http/route-schema.ts';
import { Type } from '../schema/type.ts';
import type { SessionHttp } from './http.ts';

export interface SessionRouteOptions {
  audit: Audit;
  sessions: SessionHttp;
}

const emptyBody = Type.Object({}, { additionalProperties: false });

export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRouteOptions> = async (app, options) => {
  const { sessions, audit } = options;

  const schema = {
    summary: "Signs out: ends the caller's session",
    tags: ['session'],
    security: SESSION,
    body: emptyBody,
    response: {
      204: noBody('Signed out; the cookie is cleared.'),
      ...errorResponses('login_required', 'csrf_rejected'),
    },
  };
  app.post('/auth/logout', { schema }, async (request, reply) => {
    const session = await sessions.require(request, { partial: 'any' });
    await sessions.end(request, reply);
    await audit.record({
      event: 'session.ended',
      actor: session.identityId,
      subject: session.identityId,
      clientIp: request.clientIp,
      requestId: request.id,
      details: { session_id: session.id },
    });
    return reply.code(204).send();
  });
};
