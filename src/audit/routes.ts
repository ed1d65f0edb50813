// GET /admin/audit (the log, filtered and paged), GET /admin/audit/verify (the chains' integrity) and GET /admin/stats
// (the overview's figures from the log), for the console. Reads only; the owner guard runs before the query is validated, so anonymous callers learn nothing.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import type { Sql } from '../db/pool.ts';
import { ADMIN_ERRORS, errorResponses } from '../http/error-responses.ts';
import { SESSION } from '../http/route-schema.ts';
import { Type } from '../schema/type.ts';
import { createChainVerifier } from './chain-status.ts';
import { AuditQuerySchema, auditPage, type NamesOf } from './listing.ts';
import { auditStats, StatsQuerySchema, StatsSchema } from './stats.ts';

export interface AuditRouteOptions {
  sql: Sql;
  /** The audit chain's HMAC key. */
  auditKey: Buffer;
  clock: () => Date;
  /** The admin module's guard; it throws when the caller is not an administrator. Typed here by shape so audit
   * (which admin records into) does not import admin back. */
  requireAdmin: (request: FastifyRequest) => Promise<unknown>;
  /** Names of the people and registry records the log mentions, shown beside their ids. */
  namesOf: NamesOf;
}

export const auditRoutes: FastifyPluginAsyncTypebox<AuditRouteOptions> = async (app, options) => {
  app.addHook('preValidation', async (request) => {
    await options.requireAdmin(request);
  });
  const verify = createChainVerifier(options.sql, options.auditKey, options.clock);

  const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
  const listing = {
    summary: 'The audit log, filtered and paged, newest first',
    tags: ['admin'],
    security: SESSION,
    querystring: AuditQuerySchema,
    response: {
      200: Type.Object(
        {
          records: Type.Array(
            Type.Object(
              {
                id: Type.String(),
                event: Type.String(),
                actor_name: Nullable(Type.String()),
                subject_name: Nullable(Type.String()),
              },
              { additionalProperties: true },
            ),
          ),
          next_cursor: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
      ...errorResponses(...ADMIN_ERRORS),
    },
  };
  app.get('/admin/audit', { schema: listing }, async (request) =>
    auditPage(options.sql, request.query, options.namesOf),
  );
  app.get(
    '/admin/audit/verify',
    {
      schema: {
        summary: "Verifies the audit chains' integrity",
        tags: ['admin'],
        security: SESSION,
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Type.Object(
            {
              ok: Type.Boolean(),
              chains: Type.Integer(),
              records: Type.Integer(),
              checked_at: Type.String({ format: 'date-time' }),
              first_broken: Nullable(Type.Object({}, { additionalProperties: true })),
              breaks: Type.Array(Type.Object({}, { additionalProperties: true })),
              pending_records: Type.Integer(),
              oldest_pending_at: Nullable(Type.String({ format: 'date-time' })),
            },
            { additionalProperties: false },
          ),
          ...errorResponses(...ADMIN_ERRORS),
        },
      },
    },
    async () => verify(),
  );
  app.get(
    '/admin/stats',
    {
      schema: {
        summary: 'Sign-ins by method, failed sign-ins, sign-ups and active identities per UTC hour or day',
        tags: ['admin'],
        security: SESSION,
        querystring: StatsQuerySchema,
        response: { 200: StatsSchema, ...errorResponses(...ADMIN_ERRORS) },
      },
    },
    async (request) => auditStats(options.sql, request.query, options.clock()),
  );
};
