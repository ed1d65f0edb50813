// Runs the service: secrets, database (external or embedded), migrations before the listener opens, the
// development bootstrap, the listener, and graceful shutdown on SIGTERM/SIGINT.
import { setFlagsFromString } from 'node:v8';
import pino from 'pino';
import { buildApp } from './app.ts';
import { createAudit } from './audit/audit.ts';
import type { LoadedConfig } from './config/load.ts';
import { parseListen } from './config/validate.ts';
import { generateSecretFiles, loadSecrets } from './crypto/secret-files.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate, readMigrations } from './db/migrate.ts';
import { createPool, redactDatabaseUrl } from './db/pool.ts';
import { startDelivery } from './delivery/run.ts';
import { loggerOptions } from './http/logger.ts';
import { ensureBootstrap } from './identity/bootstrap.ts';
import { issueEnrollmentLink } from './login/local/enrollment-link.ts';

export interface RunningServer {
  url: string;
  /** Development start only: a fresh enrollment link for the development owner. */
  enrollmentLink: { url: string; expiresAt: Date } | null;
  stop(): Promise<void>;
}

export async function startServer(loaded: LoadedConfig): Promise<RunningServer> {
  const { config } = loaded;
  const log = pino(loggerOptions(config.logging.level));

  // The development instance makes its own secrets; a configured one must have run `gatehouse setup`.
  if (loaded.development) generateSecretFiles(config.secrets.dir);
  const secrets = loadSecrets(config.secrets.dir);

  let databaseUrl = config.database.url;
  let stopEmbedded: (() => Promise<void>) | null = null;
  if (databaseUrl === '') {
    const embedded = await startEmbeddedPostgres(config.data.dir, (line) => log.warn(line));
    databaseUrl = embedded.url;
    stopEmbedded = embedded.stop;
    log.warn(
      { dir: config.data.dir },
      'Using the embedded PostgreSQL: for evaluation only. Set database.url (or DATABASE_URL) for production.',
    );
  }

  const sql = createPool(databaseUrl, {
    max: config.database.pool_max,
    connectTimeoutSeconds: config.database.connect_timeout_seconds,
  });
  const migrations = readMigrations();
  let enrollmentLink: RunningServer['enrollmentLink'] = null;
  try {
    const applied = await migrate(sql, migrations);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    if (loaded.development) {
      const installation = await ensureBootstrap(sql, {
        organizationId: config.organization.id,
        organizationName: config.organization.name,
        ownerSubject: config.organization.owner_subject,
      });
      enrollmentLink = await issueEnrollmentLink(sql, installation.ownerId, config.server.issuer);
    }
  } catch (error) {
    await sql.end({ timeout: 1 });
    await stopEmbedded?.();
    throw error;
  }
  for (const item of loaded.deferred) log.warn(item, 'deferred configuration: not used until real values are set');

  const audit = createAudit(sql, secrets.audit);
  const { app, beginShutdown } = await buildApp({ config, sql, secrets, audit, migrations, clock: () => new Date() });
  const listen = parseListen(config.server.listen) ?? { host: '127.0.0.1', port: 8080 };
  await app.listen({ host: listen.host, port: listen.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const url = `http://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${port}`;
  log.info({ issuer: config.server.issuer, listen: url, database: redactDatabaseUrl(databaseUrl) }, 'listening');
  // Startup is over: the young generation may grow again with the load, and hot request code may be optimized
  // (src/gatehouse.mjs held both during loading). These are V8's defaults.
  setFlagsFromString('--semi-space-growth-factor=2');
  setFlagsFromString('--turbofan');
  setFlagsFromString('--maglev');
  // After migrations (the outbox table exists) and a successful listen; stopped before the pool closes.
  const delivery = startDelivery({ config, sql, deliveryKey: secrets.delivery, log });

  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      beginShutdown();
      const timer = setTimeout(() => app.server.closeAllConnections(), config.server.shutdown_timeout_seconds * 1000);
      await app.close();
      clearTimeout(timer);
      await delivery?.stop();
      await sql.end({ timeout: 5 });
      await stopEmbedded?.();
      log.info('stopped');
    })();
    return stopping;
  };
  return { url, enrollmentLink, stop };
}
