// Before any listener opens: the database a node will use, ready. Apart from server.ts so that a supervisor of
// several workers (supervisor.ts), which runs this once and serves nothing, does not load the whole application: the
// routes and their libraries are most of a worker's memory.

import type { Logger } from 'pino';
import type { LoadedConfig } from './config/load.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { migrate, readMigrations } from './db/migrate.ts';
import { createPool, type Sql } from './db/pool.ts';
import { exchangeClientProblems } from './gateway/exchange-client.ts';
import { UNREGISTERED_AUDIENCE, unregisteredAudiences } from './gateway/registered-audiences.ts';
import { ensureBootstrap } from './identity/bootstrap.ts';
import { issueFirstEnrollmentLink } from './login/local/enrollment-link.ts';

/** Development start only: a fresh enrollment link while the development owner has no password yet. */
export interface EnrollmentLink {
  url: string;
  expiresAt: Date;
}

export interface PreparedDatabase {
  /** The URL the service uses: database.url, or the embedded server's. */
  url: string;
  sql: Sql;
  stopEmbedded: (() => Promise<void>) | null;
  enrollmentLink: EnrollmentLink | null;
  ownerEnrolled: boolean;
}

/**
 * Before any listener opens: the embedded database when no URL is configured, the migrations, and (development
 * instance, once per node) the bootstrap organization with its first enrollment link. The supervisor of several
 * workers runs this once; each worker then only connects.
 */
export async function prepareDatabase(
  loaded: LoadedConfig,
  log: Pick<Logger, 'info' | 'warn'>,
  options: { bootstrap: boolean },
): Promise<PreparedDatabase> {
  const { config } = loaded;
  let url = config.database.url;
  let stopEmbedded: (() => Promise<void>) | null = null;
  if (url === '') {
    const embedded = await startEmbeddedPostgres(config.data.dir, (line) => log.warn(line));
    url = embedded.url;
    stopEmbedded = embedded.stop;
    log.warn(
      { dir: config.data.dir },
      'Using the embedded PostgreSQL: for evaluation only. Set database.url (or DATABASE_URL) for production.',
    );
  }

  const sql = createPool(url, {
    max: config.database.pool_max,
    connectTimeoutSeconds: config.database.connect_timeout_seconds,
  });
  let enrollmentLink: EnrollmentLink | null = null;
  let ownerEnrolled = false;
  try {
    const applied = await migrate(sql, readMigrations());
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
    for (const missing of await unregisteredAudiences(sql, config))
      log.warn(missing, `${missing.key} ${UNREGISTERED_AUDIENCE}`);
    for (const problem of await exchangeClientProblems(sql, config))
      log.warn(
        { key: 'gateway.token_exchange_client_id' },
        `${problem}: routes with exchange_audience answer 403 token_exchange_refused until it is fixed`,
      );
    if (loaded.development && options.bootstrap) {
      const installation = await ensureBootstrap(sql, {
        organizationId: config.organization.id,
        organizationName: config.organization.name,
        ownerSubject: config.organization.owner_subject,
      });
      enrollmentLink = await issueFirstEnrollmentLink(sql, installation.ownerId, config.server.issuer);
      ownerEnrolled = enrollmentLink === null;
    }
  } catch (error) {
    await sql.end({ timeout: 1 });
    await stopEmbedded?.();
    throw error;
  }
  return { url, sql, stopEmbedded, enrollmentLink, ownerEnrolled };
}
