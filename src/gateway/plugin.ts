// Builds the gateway from the configuration: the organization is checked against the database (an unknown one stops
// startup before the listener opens), the policy table compiled, the verifier made, the routes and the WebSocket
// upgrade handler registered.
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../config/errors.ts';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import { findOrganization } from '../identity/directory-store.ts';
import type { Keyring } from '../oauth/keyring.ts';
import type { TokenStateCache } from '../oauth/token-state-cache.ts';
import { createAccessTokenVerifier } from '../oauth/tokens.ts';
import { compileRouteTable } from './route-table.ts';
import { gatewayRoutes } from './routes.ts';
import { handleUpgrades } from './upgrade.ts';

export interface GatewayDeps {
  config: Config;
  /** Named in a configuration error: the file the configuration came from. */
  configFile: string;
  sql: Sql;
  keyring: Keyring;
  tokenStates: TokenStateCache;
  clock: () => Date;
  trustedProxy: boolean;
  isClosing: () => boolean;
}

export async function gatewayPlugin(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { config } = deps;
  if (config.auth.enabled && !(await findOrganization(deps.sql, config.auth.organization_id)))
    throw new ConfigError(deps.configFile, [
      {
        key: 'auth.organization_id',
        problem: `organization "${config.auth.organization_id}" does not exist in the database`,
      },
    ]);
  if (!config.auth.enabled)
    app.log.warn({ route_prefix: config.gateway.route_prefix }, 'gateway without auth: proxying with no policy checks');
  const { gateway } = config;
  const host = gateway.upstream_host.includes(':') ? `[${gateway.upstream_host}]` : gateway.upstream_host;
  const routeDeps = {
    table: compileRouteTable(config),
    access: {
      sql: deps.sql,
      tokenStates: deps.tokenStates,
      verifier: createAccessTokenVerifier({ keyring: deps.keyring, issuer: config.server.issuer, clock: deps.clock }),
      organizationId: config.auth.organization_id,
    },
    upstream: {
      origin: `${gateway.upstream_tls ? 'https' : 'http'}://${host}:${gateway.upstream_port}`,
      timeoutSeconds: gateway.upstream_timeout_seconds,
    },
    routePrefix: gateway.route_prefix,
    bodyLimitBytes: gateway.body_limit_bytes,
  };
  await app.register(gatewayRoutes, routeDeps);
  handleUpgrades(app, { ...routeDeps, trustedProxy: deps.trustedProxy, isClosing: deps.isClosing });
}
