// The gateway suites' shared set-up: a real upstream, a database with the policy organization, and the app built
// with a gateway configuration in front of the upstream.
import type { Config, RoutePolicyConfig } from '../../src/config/schema.ts';
import type { Sql } from '../../src/db/pool.ts';
import { startTestApp, type TestApp, type TestClock } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

export const policy = (p: Partial<RoutePolicyConfig> & Pick<RoutePolicyConfig, 'path_prefix'>): RoutePolicyConfig => ({
  methods: ['GET'],
  required_roles: [],
  role_match: 'any',
  minimum_assurance: '',
  required_scope: '',
  required_audience: '',
  exchange_audience: '',
  ...p,
});

export function gatewayConfig(
  upstreamPort: number,
  policies: RoutePolicyConfig[],
  gateway: Partial<Config['gateway']> = {},
): Config {
  return makeConfig({
    gateway: { enabled: true, route_prefix: '/app', upstream_port: upstreamPort, ...gateway },
    auth: {
      enabled: true,
      provider_id: 'gatehouse',
      organization_id: 'acme',
      protected_route_prefix: '/app/p',
      route_policies: policies,
    },
  });
}

export async function databaseWithOrganization(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  await db.sql`insert into organizations (id, name) values ('acme', 'Acme')`;
  return db;
}

/** Listening: the gateway answers on the server's socket, ahead of Fastify (over-socket.ts). */
export async function startGateway(config: Config, sql: Sql, clock?: TestClock, listen = true): Promise<TestApp> {
  return startTestApp({ config, sql, listen, ...(clock ? { clock } : {}) });
}
