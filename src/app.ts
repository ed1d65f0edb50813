// Builds the Fastify app from the feature modules. Every dependency is passed in here, explicitly: modules never
// reach for globals, so tests build the same app against their own database, secrets and clock.

import type { Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerFactory, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import type { AccountDeps } from './account/deps.ts';
import { confirmFactors } from './account/reauth.ts';
import { accountRoutes } from './account/routes.ts';
import { type AdminGuard, createAdminGuard } from './admin/guard.ts';
import { adminRoutes } from './admin/routes.ts';
import { samlConnectionRoutes } from './admin/saml-connection-routes.ts';
import { fetchSamlMetadataNow } from './admin/saml-metadata-refresh.ts';
import type { Audit } from './audit/audit.ts';
import { auditRoutes } from './audit/routes.ts';
import { findRegistryLabels } from './clients/store.ts';
import type { Clock } from './clock.ts';
import { passkeysUnavailable, relyingParty } from './config/passkeys.ts';
import { ethereumRpcUrls, providerState } from './config/provider-state.ts';
import type { Config } from './config/schema.ts';
import type { Secrets } from './crypto/secret-files.ts';
import { forgetOwnChanges } from './db/forget-on-commit.ts';
import type { Migration } from './db/migrate.ts';
import type { Sql } from './db/pool.ts';
import { mailboxRoutes } from './delivery/mailbox-routes.ts';
import { createOutbox } from './delivery/outbox.ts';
import { linkDelivery } from './delivery/status.ts';
import { gatewayInUse } from './gateway/in-use.ts';
import { checkGatewayOrganization, gatewayPlugin } from './gateway/plugin.ts';
import { healthRoutes } from './health/routes.ts';
import { clientErrorHandler, expectationFailedHandler } from './http/client-error.ts';
import { loggerOptions } from './http/logger.ts';
import { httpPlugin, newRequestId } from './http/plugin.ts';
import { fastifyCompilers, precompiledValidators, type ValidatorBuilder } from './http/route-validators.ts';
import { routerErrorHandler } from './http/router-errors.ts';
import { createLocaleResolver } from './i18n/request-locale.ts';
import { findIdentityLabels } from './identity/store.ts';
import { buildProviderRegistry } from './login/federated/registry.ts';
import { federatedRoutes } from './login/federated/routes.ts';
import { loadDirectories } from './login/ldap/directory.ts';
import type { LocalLoginDeps } from './login/local/deps.ts';
import { localLoginRoutes } from './login/local/routes.ts';
import { signInMethods } from './login/methods/available.ts';
import { signInMethodRoutes } from './login/methods/routes.ts';
import { passkeyRoutes } from './login/passkey/routes.ts';
import { samlAdminRoutes } from './login/saml/admin-routes.ts';
import { loadSamlConnections } from './login/saml/connection.ts';
import { rolloverRefetch } from './login/saml/key-rollover.ts';
import { keepIdpMetadataFresh, type MetadataLog } from './login/saml/metadata-url.ts';
import { samlRoutes } from './login/saml/routes.ts';
import { reloadStoredConnections, SAML_CONNECTIONS_CHANGED } from './login/saml/stored-connections.ts';
import { createSessionSettler } from './login/step-up/pending-step.ts';
import { stepUpRoutes } from './login/step-up/routes.ts';
import { farcasterRoutes } from './login/web3/farcaster-routes.ts';
import { ethereumRoutes } from './login/web3/routes.ts';
import { countAuditedOutcomes } from './metrics/audit-outcomes.ts';
import { createMetrics } from './metrics/registry.ts';
import { metricsRoutes } from './metrics/routes.ts';
import { queueSessionLogoutTokens } from './oauth/backchannel-logout.ts';
import { createJtiReplayGuard, type JtiReplayGuard } from './oauth/jti-replay-guard.ts';
import { SIGNING_KEYS_CHANGED } from './oauth/key-store.ts';
import { Keyring } from './oauth/keyring.ts';
import { oauthRoutes } from './oauth/routes.ts';
import { TokenStateCache } from './oauth/token-state-cache.ts';
import { listenForTokenState } from './oauth/token-state-listener.ts';
import { collectRoutes } from './openapi/collect.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { requireSessionCookieFirst } from './session/cookie-first.ts';
import { createSessionHttp, type SessionHttp } from './session/http.ts';
import { sessionRoutes } from './session/routes.ts';
import { statusRoutes } from './status/routes.ts';
import { VERSION } from './version.ts';
import { ACCENT_PATH, brandHeaderHtml, brandIndex, loadBranding } from './web/branding.ts';
import { localizedIndex } from './web/localized-index.ts';
import { htmlNotFound } from './web/not-found.ts';
import { webRoutes } from './web/routes.ts';
import { readUiBuild } from './web/ui-build.ts';

/** The route label of requests no route matched (404s, probes): one value, whatever URL was asked for. */
const UNMATCHED_ROUTE = 'unmatched';

export interface AppDeps {
  config: Config;
  sql: Sql;
  secrets: Secrets;
  audit: Audit;
  migrations: Migration[];
  clock: Clock;
  /** Where logs go; stdout by default. Tests pass a capture stream. */
  logStream?: DestinationStream;
  /** The configuration file, named by configuration errors found only against the database. */
  configFile?: string;
  /** tls.mode files or acme: the listener serves HTTPS with this certificate (src/tls/serving.ts swaps it later). */
  https?: { cert: string; key: string } | null;
  /** How route schemas become validators: the build's (default); `npm run validators` passes one that records them. */
  buildValidator?: ValidatorBuilder;
}

/** Services built once from AppDeps and handed to every feature module's routes. */
export interface Services {
  sessions: SessionHttp;
  requireAdmin: AdminGuard;
  /** OIDC signing keys (DB-backed, cached); `gatehouse keys rotate` and tests add keys through it. */
  keyring: Keyring;
  /** Token state cached per node for introspection and userinfo; tests observe its invalidations. */
  tokenStates: TokenStateCache;
  /** Single use of DPoP proof and client assertion jtis: this process's front of the shared replay store. */
  usedJtis: JtiReplayGuard;
}

export interface GatehouseApp {
  app: FastifyInstance;
  services: Services;
  /** Marks the app as closing: new requests get 503 while in-flight ones finish. */
  beginShutdown(): void;
}

/**
 * The HTTPS listener of tls.mode files/acme. A server factory rather than Fastify's `https` option keeps the app's
 * type the same in every mode; the server is Node's https.Server either way, so setSecureContext swaps certificates.
 */
function httpsServerFactory(tls: { cert: string; key: string }): FastifyServerFactory {
  return (handler) =>
    createHttpsServer({ cert: tls.cert, key: tls.key, requireHostHeader: false }, handler) as unknown as HttpServer;
}

export async function buildApp(deps: AppDeps): Promise<GatehouseApp> {
  const { config } = deps;
  await checkGatewayOrganization(deps.sql, config, deps.configFile ?? '(configuration)');
  let closing = false;
  const metrics = createMetrics(deps.sql);
  const audit = countAuditedOutcomes(deps.audit, metrics);
  const tls = new URL(config.server.issuer).protocol === 'https:';
  const app = Fastify({
    logger: deps.logStream
      ? { ...loggerOptions(config.logging.level), stream: deps.logStream }
      : loggerOptions(config.logging.level),
    // Our onResponse hook writes one access line without the query string; Fastify's own lines would include it.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: newRequestId,
    requestIdHeader: false,
    bodyLimit: config.server.body_limit_bytes,
    forceCloseConnections: 'idle',
    return503OnClosing: false,
    // Unknown fields are errors, never silently dropped; JSON types are never coerced.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: true, allErrors: false } },
    // Request validators come compiled from the build (src/http/route-validators.ts). Response schemas document the
    // contract (and tests check answers against it); bodies are still written by JSON.stringify, so a schema that
    // missed a field never silently drops it (docs/decisions.md, "OpenAPI").
    schemaController: { compilersFactory: fastifyCompilers(deps.buildValidator ?? precompiledValidators()) },
    // What the router and Node's HTTP parser refuse before any route or hook runs answers with the envelope too.
    frameworkErrors: routerErrorHandler(tls),
    clientErrorHandler: clientErrorHandler(tls),
    // Node would answer an HTTP/1.1 request without Host with an empty 400 of its own; plugin.ts refuses it instead.
    http: { requireHostHeader: false },
    ...(deps.https ? { serverFactory: httpsServerFactory(deps.https) } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.server.on('checkExpectation', expectationFailedHandler(tls, app.log));
  // Every route from here on is recorded for the OpenAPI document (src/openapi/).
  const routes = collectRoutes(app);

  const sessions = createSessionHttp({
    sql: deps.sql,
    audit,
    issuer: config.server.issuer,
    lifetimes: { idleSeconds: config.sessions.idle_ttl_seconds, absoluteSeconds: config.sessions.absolute_ttl_seconds },
    clock: deps.clock,
    onSignOut: queueSessionLogoutTokens,
    settle: createSessionSettler({ requireSecondFactor: config.login.require_second_factor }),
  });
  // The language of hosted pages and of the mails a request causes (src/i18n/request-locale.ts).
  const localeOf = createLocaleResolver({ sql: deps.sql, sessions, fallback: config.branding.default_locale });
  const ui = readUiBuild();
  const branding = loadBranding(config);
  const pageFor = localizedIndex(ui.index === null ? null : brandIndex(ui.index, branding));
  // What the server-rendered protocol pages (consent, logout, errors) share with the UI's pages.
  const shell = {
    stylesheets: [ui.stylesheet, ACCENT_PATH].filter((s) => s !== null),
    header: brandHeaderHtml(branding),
    siteName: branding.organizationName,
    localeOf,
  };
  await app.register(httpPlugin, {
    trustedProxy: config.server.trusted_proxy,
    tls,
    isClosing: () => closing,
    htmlNotFound: htmlNotFound(pageFor, localeOf),
    observe: (method, route, status, seconds) =>
      metrics.observeRequest(method, route ?? UNMATCHED_ROUTE, status, seconds),
  });
  // Before any route is registered: onRoute hooks see only the routes added after them.
  app.addHook('onRoute', requireSessionCookieFirst(sessions));
  const services: Services = {
    sessions,
    requireAdmin: createAdminGuard({ sql: deps.sql, sessions, organizationId: config.organization.id }),
    keyring: new Keyring({
      sql: deps.sql,
      initialPem: deps.secrets.oidcSigningKey,
      sealKey: deps.secrets.signing,
      clock: deps.clock,
      maxTokenLifetimeSeconds: Math.max(config.tokens.access_token_ttl_seconds, config.tokens.id_token_ttl_seconds),
    }),
    tokenStates: new TokenStateCache({ maxAgeSeconds: config.tokens.state_cache_seconds, clock: deps.clock }),
    usedJtis: createJtiReplayGuard(deps.sql, deps.clock),
  };
  if (services.tokenStates.enabled) {
    const listener = await listenForTokenState(deps.sql, services.tokenStates, {
      onError: (error) => app.log.warn({ err: error }, 'token state cache bypassed: LISTEN failed, retrying'),
    });
    app.addHook('onClose', () => listener.close());
    // What this node revokes it forgets as soon as the change commits (src/db/forget-on-commit.ts).
    const unregister = forgetOwnChanges(deps.sql, services.tokenStates);
    app.addHook('onClose', async () => {
      unregister();
    });
    // A key rotated on any node (`gatehouse keys rotate`) is signed with here at once; after the LISTEN connection
    // was lost a notification may have been missed, so the key set is read again then too.
    services.tokenStates.observe((event) => {
      if (event.type === 'listening' || (event.type === 'invalidated' && event.key === SIGNING_KEYS_CHANGED))
        services.keyring.refresh().catch((error: unknown) => app.log.warn({ err: error }, 'signing key reload failed'));
    });
  }

  // Feature modules: each registers its own routes with the dependencies it needs, passed explicitly.
  await app.register(healthRoutes, { sql: deps.sql, migrations: deps.migrations });
  await app.register(webRoutes, { dist: ui.dist, pageFor, localeOf, branding });
  const samlConnections = loadSamlConnections(config);
  // Those made through the admin API: read when the app is ready (not while building it: `npm run openapi` builds it
  // without a database) and again whenever any node changes one (the NOTIFY below) or the LISTEN connection returns.
  // One reload at a time, in order: a slow earlier read must not overwrite a later one.
  let samlReload = Promise.resolve();
  const reloadSaml = () => {
    samlReload = samlReload
      .then(() => reloadStoredConnections(deps.sql, deps.secrets.signing, config, samlConnections))
      .catch((error: unknown) => app.log.warn({ err: error }, 'SAML connection reload failed'));
    return samlReload;
  };
  if (services.tokenStates.enabled)
    services.tokenStates.observe((event) => {
      if (event.type === 'listening' || (event.type === 'invalidated' && event.key === SAML_CONNECTIONS_CHANGED))
        void reloadSaml();
    });
  app.addHook('onReady', reloadSaml);
  const metadataLog: MetadataLog = (connection, level, message) => app.log[level]({ connection }, message);
  const stopMetadataRefresh = await keepIdpMetadataFresh(samlConnections, metadataLog);
  const metadataFetch = { sql: deps.sql, clock: deps.clock, metadataLog, reloadConnections: reloadSaml };
  const keysRolledOver = rolloverRefetch(
    async (connection) => (await fetchSamlMetadataNow(metadataFetch, connection)) === null,
    () => deps.clock().getTime(),
  );
  app.addHook('onClose', async () => stopMetadataRefresh());
  const localLogin: LocalLoginDeps = {
    sql: deps.sql,
    audit,
    clock: deps.clock,
    secrets: deps.secrets,
    passwords: config.passwords,
    organization: config.organization,
    login: config.login,
    issuer: config.server.issuer,
    directories: loadDirectories(config),
    logDirectoryFailure: (directory, error) => app.log.warn({ err: error, directory }, 'LDAP directory unavailable'),
    samlConnections,
  };
  await app.register(localLoginRoutes, { sessions, deps: localLogin });
  await app.register(stepUpRoutes, { sessions, deps: localLogin });
  await app.register(samlRoutes, {
    sessions,
    shell,
    deps: {
      sql: deps.sql,
      audit: deps.audit,
      clock: deps.clock,
      issuer: config.server.issuer,
      connections: samlConnections,
      logRefusal: (connection, error) => app.log.warn({ err: error, connection }, 'SAML response refused'),
      keysRolledOver,
    },
  });
  await app.register(signInMethodRoutes, { config, samlConnections });
  const outbox = createOutbox({ config, deliveryKey: deps.secrets.delivery, clock: deps.clock });
  await app.register(federatedRoutes, {
    sessions,
    shell,
    deps: {
      sql: deps.sql,
      audit: deps.audit,
      clock: deps.clock,
      issuer: config.server.issuer,
      providers: buildProviderRegistry(config),
      selfService: signInMethods(config).self_service,
      logFailure: (provider, error) => app.log.warn({ err: error, provider }, 'federated sign-in refused'),
    },
  });
  await app.register(ethereumRoutes, {
    sessions,
    deps: {
      sql: deps.sql,
      audit: deps.audit,
      clock: deps.clock,
      issuer: config.server.issuer,
      enabled: providerState(config, 'ethereum').state === 'enabled',
      chainIds: config.providers.ethereum.chain_ids,
      rpcUrls: ethereumRpcUrls(config),
      statement: config.providers.ethereum.statement,
      selfService: signInMethods(config).self_service,
    },
  });
  await app.register(farcasterRoutes, {
    sessions,
    deps: {
      sql: deps.sql,
      audit: deps.audit,
      clock: deps.clock,
      issuer: config.server.issuer,
      domain: config.providers.farcaster.domain || new URL(config.server.issuer).host,
      enabled: providerState(config, 'farcaster').state === 'enabled',
      relayUrl: config.providers.farcaster.relay_url,
      rpcUrl: config.providers.farcaster.rpc_url,
      selfService: signInMethods(config).self_service,
    },
  });
  const accountDeps: AccountDeps = {
    sql: deps.sql,
    audit: deps.audit,
    clock: deps.clock,
    config,
    secrets: deps.secrets,
    outbox,
    localeOf,
  };
  await app.register(accountRoutes, { sessions, deps: accountDeps });
  await app.register(passkeyRoutes, {
    sessions,
    deps: {
      sql: deps.sql,
      audit,
      clock: deps.clock,
      config,
      relyingParty: relyingParty(config),
      unavailable: passkeysUnavailable(config),
      decoyKey: deps.secrets.signing,
      confirmPassword: async (context, identityId, password) => {
        await confirmFactors(accountDeps, context, identityId, { password });
      },
    },
  });
  await app.register(sessionRoutes, { audit, sessions });
  await app.register(oauthRoutes, {
    config,
    sql: deps.sql,
    secrets: deps.secrets,
    audit,
    clock: deps.clock,
    keyring: services.keyring,
    tokenStates: services.tokenStates,
    usedJtis: services.usedJtis,
    sessions,
    shell,
    onTokenIssued: metrics.tokenIssued,
  });
  // The administration API's dependencies, shared by its routes and the SAML connection routes.
  const adminDeps = {
    sql: deps.sql,
    audit,
    clock: deps.clock,
    clientSecretKey: deps.secrets.clientSecret,
    organizationId: config.organization.id,
    issuer: config.server.issuer,
    accessTokenTtlSeconds: config.tokens.access_token_ttl_seconds,
    log: app.log,
    requireAdmin: services.requireAdmin,
    invitations: {
      delivery: linkDelivery(config),
      outbox,
      defaultLocale: config.branding.default_locale,
    },
  };
  await app.register(adminRoutes, adminDeps);
  await app.register(auditRoutes, {
    sql: deps.sql,
    auditKey: deps.secrets.audit,
    clock: deps.clock,
    requireAdmin: services.requireAdmin,
    namesOf: async (ids) => {
      const [people, registry] = await Promise.all([
        findIdentityLabels(deps.sql, ids),
        findRegistryLabels(deps.sql, ids),
      ]);
      return new Map([...people, ...registry]);
    },
  });
  // Development only: the mailbox's messages carry working links, so the route exists only where config allows the
  // mailbox at all (a loopback issuer).
  if (config.delivery.kind === 'dev_mailbox')
    await app.register(mailboxRoutes, {
      sql: deps.sql,
      deliveryKey: deps.secrets.delivery,
      requireAdmin: services.requireAdmin,
    });
  await app.register(samlAdminRoutes, { connections: samlConnections, requireAdmin: services.requireAdmin });
  await app.register(samlConnectionRoutes, {
    ...adminDeps,
    config,
    connections: samlConnections,
    ...metadataFetch,
    sealKey: deps.secrets.signing,
  });
  await app.register(statusRoutes, {
    config,
    sql: deps.sql,
    migrations: deps.migrations,
    keyring: services.keyring,
    clock: deps.clock,
    requireAdmin: services.requireAdmin,
  });

  await app.register(metricsRoutes, { metrics, bearerKey: deps.secrets.metrics });
  await app.register(openApiRoutes, { routes, issuer: config.server.issuer, version: VERSION });
  // Last: its routes take whatever lies under gateway.route_prefix, which config validation keeps clear of ours.
  if (gatewayInUse(config))
    await app.register(gatewayPlugin, {
      config,
      sql: deps.sql,
      keyring: services.keyring,
      tokenStates: services.tokenStates,
      usedJtis: services.usedJtis,
      clock: deps.clock,
      trustedProxy: config.server.trusted_proxy,
      isClosing: () => closing,
      audit,
      onExchangedToken: metrics.gatewayExchangedToken,
      tls,
      observe: metrics.observeRequest,
    });

  return {
    app,
    services,
    beginShutdown() {
      closing = true;
    },
  };
}
