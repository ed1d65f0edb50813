// GET /admin/audit (the log, filtered and paged) and GET /admin/audit/verify (the chains' integrity), for the
// console. Reads only; the owner guard runs before the query is validated, so anonymous callers learn nothing.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Sql } from '../db/pool.ts';
import { createChainVerifier } from './chain-status.ts';
import { AuditQuerySchema, auditPage, type NamesOf } from './listing.ts';

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

  app.get('/admin/audit', { schema: { querystring: AuditQuerySchema } }, async (request) =>
    auditPage(options.sql, request.query, options.namesOf),
  );
  app.get(
    '/admin/audit/verify',
    { schema: { querystring: Type.Object({}, { additionalProperties: false }) } },
    async () => verify(),
  );
};
