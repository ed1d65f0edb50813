// GET /admin/status: what `gatehouse doctor` reports, for the console. The delivery checks log in to the relay or
// call the webhook, so they are bounded by a timeout, and concurrent requests on a node share one run.
import { promises as dns } from 'node:dns';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AdminGuard } from '../admin/guard.ts';
import type { Config } from '../config/schema.ts';
import type { Migration } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import type { DnsResolver } from '../delivery/dns-report.ts';
import { ADMIN_ERRORS, errorResponses } from '../http/error-responses.ts';
import { SESSION } from '../http/route-schema.ts';
import type { Keyring } from '../oauth/keyring.ts';
import { Type } from '../schema/type.ts';
import type { StatusReport } from './report.ts';

export interface StatusRouteOptions {
  config: Config;
  sql: Sql;
  migrations: Migration[];
  keyring: Keyring;
  clock: () => Date;
  requireAdmin: AdminGuard;
  /** Tests inject a resolver; the default asks the system's DNS servers, once, within the timeout. */
  resolver?: DnsResolver;
  checkTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export const statusRoutes: FastifyPluginAsyncTypebox<StatusRouteOptions> = async (app, options) => {
  const checkTimeoutMs = options.checkTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const resolver = options.resolver ?? new dns.Resolver({ timeout: checkTimeoutMs, tries: 1 });
  let running: Promise<StatusReport> | null = null;
  const status = () => {
    // The report and its checks (delivery doctor, DNS, TLS, providers) load on the first request: an owner asks now
    // and then, and an idle server stays smaller without them (docs/decisions.md, "Idle RSS").
    running ??= import('./report.ts')
      .then(({ collectStatus }) =>
        collectStatus({
          config: options.config,
          withDatabase: (work) => work(options.sql),
          keyring: () => options.keyring,
          migrations: options.migrations,
          resolver,
          checkTimeoutMs,
          clock: options.clock,
        }),
      )
      .finally(() => {
        running = null;
      });
    return running;
  };

  app.addHook('preValidation', async (request) => {
    await options.requireAdmin(request);
  });
  const schema = {
    summary: 'What `gatehouse doctor` reports: database, delivery, providers, TLS, signing keys',
    tags: ['admin'],
    security: SESSION,
    querystring: Type.Object({}, { additionalProperties: false }),
    response: {
      200: Type.Object(
        {
          status: Type.String(),
          checked_at: Type.String({ format: 'date-time' }),
          database: Type.Object({}, { additionalProperties: true }),
          delivery: Type.Object({}, { additionalProperties: true }),
          providers: Type.Object({}, { additionalProperties: true }),
          tls: Type.Object({}, { additionalProperties: true }),
          signing_keys: Type.Object({}, { additionalProperties: true }),
        },
        { additionalProperties: false },
      ),
      ...errorResponses(...ADMIN_ERRORS),
    },
  };
  app.get('/admin/status', { schema }, async () => status());
};
