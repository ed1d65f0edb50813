// Builds the gateway from the configuration: the organization is checked against the database (an unknown one stops
// startup before the listener opens, checkGatewayOrganization), the policy table compiled, the verifier made, the routes and the WebSocket
// upgrade handler registered.
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../config/errors.ts';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import { findOrganization } from '../identity/directory-store.ts';
import type { JtiReplayGuard } from '../oauth/jti-replay-guard.ts';
import type { Keyring } from '../oauth/keyring.ts';
import type { TokenStateCache } from '../oauth/token-state-cache.ts';
import { createAccessTokenVerifier } from '../oauth/tokens.ts';
import { strippedHeaderFilter } from './identity-headers.ts';
import { compileRouteTable } from './route-table.ts';
import { gatewayRoutes } from './routes.ts';
import { handleUpgrades } from './upgrade.ts';

export interface GatewayDeps {
  config: Config;
  sql: Sql;
  keyring: Keyring;
  tokenStates: TokenStateCache;
  usedJtis: JtiReplayGuard;
  clock: () => Date;
  trustedProxy: boolean;
  isClosing: () => boolean;
}

/**
 * The one gateway setting only the database can judge: auth.organization_id must name an organization. Run before the
 * app is built (src/app.ts), so a bad value stops startup before anything opens.
 */
export async function checkGatewayOrganization(sql: Sql, config: Config, configFile: string): Promise<void> {
  if (!config.gateway.enabled || !config.auth.enabled) return;
  if (await findOrganization(sql, config.auth.organization_id)) return;
  throw new ConfigError(configFile, [
    {
      key: 'auth.organization_id',
      problem: `organization "${config.auth.organization_id}" does not exist in the database`,
    },
  ]);
}

export async function gatewayPlugin(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { config } = deps;
  if (!config.auth.enabled)
    app.log.warn({ route_prefix: config.gateway.route_prefix }, 'gateway without auth: proxying with no policy checks');
  const { gateway } = config;
  const host = gateway.upstream_host.includes(':') ? `[${gateway.upstream_host}]` : gateway.upstream_host;
  const routeDeps = {
    table: compileRouteTable(config),
    strippedHeaders: strippedHeaderFilter(gateway.strip_request_headers),
    access: {
      sql: deps.sql,
      tokenStates: deps.tokenStates,
      verifier: createAccessTokenVerifier({ keyring: deps.keyring, issuer: config.server.issuer, clock: deps.clock }),
      organizationId: config.auth.organization_id,
      // Nonces are served and required by the token endpoint and userinfo only (docs/decisions.md "DPoP").
      dpop: { usedJtis: deps.usedJtis, issuer: config.server.issuer, clock: deps.clock, nonces: null },
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
