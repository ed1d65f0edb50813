// Builds the gateway from the configuration: the organization is checked against the database (an unknown one stops
// startup before the listener opens, checkGatewayOrganization), the policy table compiled, the verifier made, the
// routes and the WebSocket upgrade handler registered (gateway.enabled), and the forward-auth endpoint put ahead of
// Fastify (gateway.forward_auth). Both judge with one decide() and one route table.
import type { FastifyInstance } from 'fastify';
import type { Audit } from '../audit/audit.ts';
import { ConfigError } from '../config/errors.ts';
import { trustedCallers } from '../config/forward-auth-callers.ts';
import type { Config } from '../config/schema.ts';
import type { Sql } from '../db/pool.ts';
import { findOrganization } from '../identity/directory-store.ts';
import { createClientDirectory } from '../oauth/client-directory.ts';
import type { JtiReplayGuard } from '../oauth/jti-replay-guard.ts';
import type { Keyring } from '../oauth/keyring.ts';
import type { TokenStateCache } from '../oauth/token-state-cache.ts';
import { createAccessTokenVerifier, createTokenSigner } from '../oauth/tokens.ts';
import { createExchangedTokens, type ExchangedTokens } from './exchanged-tokens.ts';
import { forwardAuthHandler } from './forward-auth.ts';
import { type FrontHandler, installFront } from './front.ts';
import { strippedHeaderFilter } from './identity-headers.ts';
import { gatewayInUse } from './in-use.ts';
import { gatewayProxyHandler } from './proxy.ts';
import { compileRouteTable } from './route-table.ts';
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
  /** Records the exchanges of routes with exchange_audience (oauth.token_exchanged, …_refused). */
  audit: Audit;
  /** Told whether a forwarded exchanged token was kept or exchanged for the request (metrics). */
  onExchangedToken: (reused: boolean) => void;
  /** The issuer is https: answers of the raw data path carry HSTS as every other answer does. */
  tls: boolean;
  /** The request metrics, for the answers of the raw data path (front.ts). */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
}

/**
 * The one gateway setting only the database can judge: auth.organization_id must name an organization. Run before the
 * app is built (src/app.ts), so a bad value stops startup before anything opens.
 */
export async function checkGatewayOrganization(sql: Sql, config: Config, configFile: string): Promise<void> {
  if (!gatewayInUse(config) || !config.auth.enabled) return;
  if (await findOrganization(sql, config.auth.organization_id)) return;
  throw new ConfigError(configFile, [
    {
      key: 'auth.organization_id',
      problem: `organization "${config.auth.organization_id}" does not exist in the database`,
    },
  ]);
}

/** What routes with exchange_audience forward (exchanged-tokens.ts); null without gateway.token_exchange_client_id. */
function exchangedTokens(
  app: FastifyInstance,
  deps: GatewayDeps,
  verifier: ReturnType<typeof createAccessTokenVerifier>,
): ExchangedTokens | null {
  const { config } = deps;
  if (config.gateway.token_exchange_client_id === '') return null;
  return createExchangedTokens({
    sql: deps.sql,
    tokenStates: deps.tokenStates,
    clients: createClientDirectory({ sql: deps.sql, clock: deps.clock }),
    signer: createTokenSigner({
      keyring: deps.keyring,
      issuer: config.server.issuer,
      clock: deps.clock,
      accessTokenTtlSeconds: config.tokens.access_token_ttl_seconds,
      idTokenTtlSeconds: config.tokens.id_token_ttl_seconds,
    }),
    verifier,
    clock: deps.clock,
    audit: deps.audit,
    clientId: config.gateway.token_exchange_client_id,
    onForward: deps.onExchangedToken,
    onRefused: (error, audience) =>
      app.log.warn(
        { client_id: config.gateway.token_exchange_client_id, audience, error: error.code, reason: error.message },
        'gateway token exchange refused',
      ),
  });
}

export async function gatewayPlugin(app: FastifyInstance, deps: GatewayDeps): Promise<void> {
  const { config } = deps;
  if (!config.auth.enabled)
    app.log.warn({ route_prefix: config.gateway.route_prefix }, 'gateway without auth: proxying with no policy checks');
  const { gateway } = config;
  const host = gateway.upstream_host.includes(':') ? `[${gateway.upstream_host}]` : gateway.upstream_host;
  const verifier = createAccessTokenVerifier({
    keyring: deps.keyring,
    issuer: config.server.issuer,
    clock: deps.clock,
  });
  const decisionDeps = {
    table: compileRouteTable(config),
    access: {
      sql: deps.sql,
      tokenStates: deps.tokenStates,
      verifier,
      organizationId: config.auth.organization_id,
      // Nonces are served and required by the token endpoint and userinfo only (docs/decisions.md "DPoP").
      dpop: { usedJtis: deps.usedJtis, issuer: config.server.issuer, clock: deps.clock, nonces: null },
    },
    exchanged: exchangedTokens(app, deps, verifier),
  };
  const handlers: FrontHandler[] = [];
  if (gateway.forward_auth)
    handlers.push(
      forwardAuthHandler({
        ...decisionDeps,
        cacheSeconds: gateway.forward_auth_cache_seconds,
        isCaller: trustedCallers(gateway.forward_auth_callers),
        clock: deps.clock,
      }),
    );
  if (gateway.enabled) {
    const routeDeps = {
      ...decisionDeps,
      strippedHeaders: strippedHeaderFilter(gateway.strip_request_headers),
      upstream: {
        origin: `${gateway.upstream_tls ? 'https' : 'http'}://${host}:${gateway.upstream_port}`,
        timeoutSeconds: gateway.upstream_timeout_seconds,
      },
      routePrefix: gateway.route_prefix,
      bodyLimitBytes: gateway.body_limit_bytes,
    };
    handlers.push(await gatewayProxyHandler(routeDeps, deps.tls));
    handleUpgrades(app, { ...routeDeps, trustedProxy: deps.trustedProxy, isClosing: deps.isClosing });
  }
  installFront(
    app.server,
    { tls: deps.tls, trustedProxy: deps.trustedProxy, isClosing: deps.isClosing, log: app.log, observe: deps.observe },
    handlers,
  );
  app.addHook('onClose', async () => {
    for (const handler of handlers) await handler.close?.();
  });
}
