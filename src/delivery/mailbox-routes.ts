// GET /admin/mailbox: the development mailbox's kept messages, newest first, for the console's Mailbox page. The
// route exists only when delivery.kind is "dev_mailbox" (app.ts), which configuration allows only for a loopback
// issuer; it sits behind the owner guard like every /admin route.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Sql } from '../db/pool.ts';
import { ADMIN_ERRORS, errorResponses } from '../http/error-responses.ts';
import { SESSION } from '../http/route-schema.ts';
import { Type } from '../schema/type.ts';
import { readMailbox } from './dev-mailbox.ts';

export interface MailboxRouteOptions {
  sql: Sql;
  deliveryKey: Buffer;
  /** The admin module's guard, typed by shape so delivery (which admin uses) does not import admin back. */
  requireAdmin: (request: FastifyRequest) => Promise<unknown>;
}

const Query = Type.Object(
  { limit: Type.Optional(Type.String({ pattern: '^(100|[1-9][0-9]?)$' })) },
  { additionalProperties: false },
);

export const mailboxRoutes: FastifyPluginAsyncTypebox<MailboxRouteOptions> = async (app, options) => {
  app.addHook('preValidation', async (request) => {
    await options.requireAdmin(request);
  });
  const schema = {
    summary: "The development mailbox's kept messages, newest first (delivery.kind dev_mailbox only)",
    tags: ['admin'],
    security: SESSION,
    querystring: Query,
    response: {
      200: Type.Object(
        {
          messages: Type.Array(
            Type.Object(
              {
                id: Type.String(),
                template: Type.String(),
                to: Type.String(),
                subject: Type.String(),
                text: Type.String(),
                link: Type.Union([Type.String(), Type.Null()]),
                kept_at: Type.String({ format: 'date-time' }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      ...errorResponses(...ADMIN_ERRORS),
    },
  };
  app.get('/admin/mailbox', { schema }, async (request) => ({
    messages: await readMailbox(options.sql, options.deliveryKey, Number(request.query.limit ?? 50)),
  }));
};
