// Runs the service: secrets, database (external or embedded), migrations before the listener opens, the
// development bootstrap, the listener, and graceful shutdown on SIGTERM/SIGINT.
import type { Server as HttpsServer } from 'node:https';
import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream } from 'pino';
import { buildApp } from './app.ts';
import { createAudit } from './audit/audit.ts';
import { parseListen } from './config/listen-address.ts';
import type { LoadedConfig } from './config/load.ts';
import { generateSecretFiles, loadSecrets } from './crypto/secret-files.ts';
import { readMigrations } from './db/migrate.ts';
import { redactDatabaseUrl, type Sql } from './db/pool.ts';
import { startDelivery } from './delivery/run.ts';
import { startHousekeeping } from './housekeeping.ts';
import { loggerOptions } from './http/logger.ts';
import { logoutTokenSigner } from './oauth/backchannel-logout.ts';
import { createTokenSigner } from './oauth/tokens.ts';
import { type EnrollmentLink, prepareDatabase } from './prepare-database.ts';
import { prepareTls, type ServedTls, type ServeTlsOptions } from './tls/serving.ts';

export interface RunningServer {
  url: string;
  /** Development start only: a fresh enrollment link while the development owner has no password yet. */
  enrollmentLink: EnrollmentLink | null;
  /** Development start only: the owner already has a password, so no link was issued. */
  ownerEnrolled: boolean;
  /** The listener's TLS (tls.mode files/acme): `reload` is what SIGHUP does. */
  tls: ServedTls;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Where logs go; stdout by default. Tests pass a capture stream. */
  logStream?: DestinationStream;
  /** Tests only: registers extra routes (e.g. one held open to test shutdown) before the listener opens. */
  extend?: (app: FastifyInstance, sql: Sql) => void;
  /** Schedules the forced close at the shutdown timeout and returns its cancel; tests fire it by hand. */
  scheduleForcedClose?: (close: () => void, ms: number) => () => void;
  /** The development mailbox's one-line notices; stderr by default. Tests pass a capture. */
  notice?: (line: string) => void;
  /** Tests: shorter TLS file polling and no hourly renewal timer. */
  tls?: ServeTlsOptions;
  /** Tests: the clock of ACME renewal decisions. */
  clock?: () => Date;
  /** Runs as one of a supervisor's workers: the supervisor made the secrets and bootstrapped the database. */
  worker?: boolean;
}

function scheduleWithTimer(close: () => void, ms: number): () => void {
  const timer = setTimeout(close, ms);
  return () => clearTimeout(timer);
}

export async function startServer(loaded: LoadedConfig, options: StartOptions = {}): Promise<RunningServer> {
  const { config } = loaded;
  const log = options.logStream
    ? pino(loggerOptions(config.logging.level), options.logStream)
    : pino(loggerOptions(config.logging.level));

  // The development instance makes its own secrets; a configured one must have run `gatehouse setup`.
  if (loaded.development && !options.worker) generateSecretFiles(config.secrets.dir);
  const secrets = loadSecrets(config.secrets.dir);

  // A worker's supervisor prepared the database and passed its URL in DATABASE_URL: migrate() finds nothing to do.
  const prepared = await prepareDatabase(loaded, log, { bootstrap: !options.worker });
  const { sql, stopEmbedded, enrollmentLink, ownerEnrolled } = prepared;
  const databaseUrl = prepared.url;
  const migrations = readMigrations();
  for (const item of loaded.deferred) log.warn(item, 'deferred configuration: not used until real values are set');

  const clock = options.clock ?? (() => new Date());
  // Before the listener opens: mode files refuses to start on an unusable file (the error names it); mode acme
  // orders the first certificate if it has none, and refuses to start when that fails.
  let tls: ServedTls;
  try {
    tls = await prepareTls({ config, sql, clock, log }, options.tls);
  } catch (error) {
    await sql.end({ timeout: 1 });
    await stopEmbedded?.();
    throw error;
  }

  const audit = createAudit(sql, secrets.audit);
  // Records a node committed with its change but never chained (it stopped first) join this node's chain now.
  try {
    const chained = await audit.chainPending();
    if (chained > 0) log.info({ chained }, 'audit records of earlier changes chained');
  } catch (error) {
    log.warn({ error: (error as Error).message }, 'chaining pending audit records failed');
  }
  let built: Awaited<ReturnType<typeof buildApp>>;
  const listen = parseListen(config.server.listen) ?? { host: '127.0.0.1', port: 8080 };
  try {
    built = await buildApp({
      config,
      sql,
      secrets,
      audit,
      migrations,
      clock: () => new Date(),
      configFile: loaded.file ?? '(development defaults)',
      ...(options.logStream ? { logStream: options.logStream } : {}),
      https: tls.initial,
    });
    options.extend?.(built.app, sql);
    await built.app.listen({ host: listen.host, port: listen.port });
  } catch (error) {
    // The ACME challenge listener and the certificate watchers would otherwise outlive the failed start.
    await tls.stop();
    throw error;
  }
  const { app, beginShutdown, services } = built;
  if (tls.initial) tls.attach(app.server as unknown as HttpsServer);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const url = `${tls.initial ? 'https' : 'http'}://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${port}`;
  log.info({ issuer: config.server.issuer, listen: url, database: redactDatabaseUrl(databaseUrl) }, 'listening');
  // After migrations (the outbox table exists) and a successful listen; stopped before the pool closes.
  const delivery = startDelivery({
    config,
    sql,
    deliveryKey: secrets.delivery,
    log,
    backchannel: logoutTokenSigner(
      createTokenSigner({
        keyring: services.keyring,
        issuer: config.server.issuer,
        clock: () => new Date(),
        accessTokenTtlSeconds: config.tokens.access_token_ttl_seconds,
        idTokenTtlSeconds: config.tokens.id_token_ttl_seconds,
      }),
    ),
    ...(options.notice ? { notice: options.notice } : {}),
  });
  const housekeeping = startHousekeeping({ sql, clock: () => new Date(), log, audit });

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      // Requests arriving on open keep-alive connections get 503 not_ready; new connections are refused at once.
      // Fastify's close() closes the listener too, but only after its hooks run; a second close is harmless.
      beginShutdown();
      app.server.close();
      const timeoutSeconds = config.server.shutdown_timeout_seconds;
      log.info({ timeoutSeconds }, 'stopping: new connections refused, finishing in-flight requests');
      const cancelForcedClose = (options.scheduleForcedClose ?? scheduleWithTimer)(() => {
        log.warn({ timeoutSeconds }, 'shutdown timeout: closing the connections still open');
        app.server.closeAllConnections();
      }, timeoutSeconds * 1000);
      await app.close();
      cancelForcedClose();
      await delivery?.stop();
      await housekeeping.stop();
      await tls.stop();
      await sql.end({ timeout: 5 });
      await stopEmbedded?.();
      log.info('stopped');
    })();
    return stopping;
  };
  return { url, enrollmentLink, ownerEnrolled, tls, stop };
}
