// Ending sessions: POST /auth/logout ends the caller's own; an owner revokes every session of an identity. Both are
// single UPDATEs (session/store.ts), so every node refuses the revoked cookie on its next request.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AdminGuard } from '../admin/guard.ts';
import type { Clock } from '../app.ts';
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { NotFound } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentity } from '../identity/store.ts';
import type { SessionHttp } from './http.ts';
import { revokeIdentitySessions } from './store.ts';

export interface SessionRouteOptions {
  sql: Sql;
  audit: Audit;
  clock: Clock;
  sessions: SessionHttp;
  requireAdmin: AdminGuard;
}

const emptyBody = Type.Object({}, { additionalProperties: false });

export const sessionRoutes: FastifyPluginAsyncTypebox<SessionRouteOptions> = async (app, options) => {
  const { sessions, audit } = options;

  app.post('/auth/logout', { schema: { body: emptyBody } }, async (request, reply) => {
    const session = await sessions.require(request, { allowEnrollmentOnly: true });
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

  app.post(
    '/admin/identities/:sub/sessions/revoke',
    {
      schema: {
        params: Type.Object({ sub: Type.String({ pattern: '^usr_[A-Za-z0-9_-]{1,64}$' }) }),
        body: emptyBody,
      },
    },
    async (request) => {
      const admin = await options.requireAdmin(request);
      const sub = request.params.sub as Sub;
      if (!(await findIdentity(options.sql, sub))) throw new NotFound('No such identity');
      const revoked = await revokeIdentitySessions(options.sql, sub, options.clock());
      await audit.record({
        event: 'session.revoked_all',
        actor: admin.identity.id,
        subject: sub,
        clientIp: request.clientIp,
        requestId: request.id,
        details: { revoked },
      });
      return { revoked };
    },
  );
};
