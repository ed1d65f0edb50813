// The OAuth/OIDC module's plugin: builds the signer and verifier once and registers every endpoint with the
// dependencies it needs.
import type { FastifyInstance } from 'fastify';
import type { Audit } from '../audit/audit.ts';
import type { Config } from '../config/schema.ts';
import type { Secrets } from '../crypto/secret-files.ts';
import type { Sql } from '../db/pool.ts';
import { addFormBodyParser } from '../http/form-body.ts';
import type { SessionHttp } from '../session/http.ts';
import { authorizeRoutes } from './authorize-route.ts';
import { createClientDirectory } from './client-directory.ts';
import { createClientKeys } from './client-keys.ts';
import { createClientThrottle } from './client-throttle.ts';
import { createDeviceCodeThrottle } from './device-code-throttle.ts';
import { deviceRoutes } from './device-routes.ts';
import { discoveryRoutes } from './discovery.ts';
import { createDpopNonces } from './dpop-nonce.ts';
import { endpointRoutes } from './endpoints-routes.ts';
import type { JtiReplayGuard } from './jti-replay-guard.ts';
import type { Keyring } from './keyring.ts';
import type { PageShell } from './pages.ts';
import { tokenRoute } from './token-route.ts';
import type { TokenStateCache } from './token-state-cache.ts';
import { createAccessTokenVerifier, createTokenSigner } from './tokens.ts';

export interface OAuthDeps {
  config: Config;
  sql: Sql;
  secrets: Secrets;
  audit: Audit;
  clock: () => Date;
  keyring: Keyring;
  /** Grant, token, client and identity facts cached per node, invalidated by NOTIFY (see token-state-cache.ts). */
  tokenStates: TokenStateCache;
  /** Single use of proof and assertion jtis, one per process (the gateway shares it). */
  usedJtis: JtiReplayGuard;
  sessions: SessionHttp;
  /** What the server-rendered pages share with the UI's (stylesheets, brand header). */
  shell: PageShell;
  /** Told the grant type of every token response issued (metrics); must stay cheap. */
  onTokenIssued: (grantType: string) => void;
}

export async function oauthRoutes(app: FastifyInstance, deps: OAuthDeps): Promise<void> {
  const { config, sql, secrets, audit, clock, keyring, tokenStates, usedJtis, sessions, shell } = deps;
  const issuer = config.server.issuer;
  const tokens = config.tokens;
  const signer = createTokenSigner({
    keyring,
    issuer,
    clock,
    accessTokenTtlSeconds: tokens.access_token_ttl_seconds,
    idTokenTtlSeconds: tokens.id_token_ttl_seconds,
  });
  const verifier = createAccessTokenVerifier({ keyring, issuer, clock });
  const clients = createClientDirectory({ sql, clock });
  const clientThrottle = createClientThrottle({ sql, audit, clock });
  const dpop = {
    usedJtis,
    issuer,
    clock,
    nonces: config.dpop.require_nonce ? createDpopNonces(secrets.signing, clock) : null,
  };
  const assertions = { usedJtis, issuer, clock, clientKeys: createClientKeys() };
  // The OAuth endpoints take form bodies (RFC 6749 §3.2); every other module is JSON-only.
  addFormBodyParser(app);

  await app.register(discoveryRoutes, { issuer, keyring });
  await app.register(authorizeRoutes, {
    sql,
    clients,
    issuer,
    clock,
    macKey: secrets.signing,
    codeTtlSeconds: tokens.authorization_code_ttl_seconds,
    sessions,
    audit,
    shell,
  });
  await app.register(tokenRoute, {
    sql,
    clients,
    signer,
    verifier,
    tokenStates,
    issuer,
    clock,
    audit,
    clientSecretKey: secrets.clientSecret,
    clientThrottle,
    assertions,
    sealKey: secrets.signing,
    onIssued: deps.onTokenIssued,
    dpop,
    lifetimes: {
      refreshIdleSeconds: tokens.refresh_token_idle_ttl_seconds,
      refreshAbsoluteSeconds: tokens.refresh_token_absolute_ttl_seconds,
      refreshGraceSeconds: tokens.refresh_token_grace_seconds,
    },
  });
  const device = config.device_authorization;
  await app.register(deviceRoutes, {
    sql,
    clients,
    clock,
    issuer,
    audit,
    sessions,
    ttlSeconds: device.code_ttl_seconds,
    intervalSeconds: device.interval_seconds,
    clientSecretKey: secrets.clientSecret,
    clientThrottle,
    assertions,
    throttle: createDeviceCodeThrottle({
      sql,
      audit,
      clock,
      limits: { perPerson: device.failures_per_person, overall: device.failures_overall },
    }),
  });
  await app.register(endpointRoutes, {
    sql,
    tokenStates,
    clients,
    verifier,
    keyring,
    issuer,
    clock,
    audit,
    clientSecretKey: secrets.clientSecret,
    clientThrottle,
    assertions,
    sessions,
    shell,
    dpop,
    refreshKey: secrets.signing,
  });
}
