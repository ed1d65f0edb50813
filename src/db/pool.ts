import postgres from 'postgres';
import { parseDatabaseUrl } from '../config/database-url.ts';
import { poolSocketFactory, type Server } from './pool-socket.ts';
import { guardTransactions } from './transaction-loss.ts';

export type Sql = postgres.Sql;
/** A pool or a transaction: stores take this first so callers choose the transaction boundary. */
export type Executor = postgres.Sql | postgres.TransactionSql;
/** A transaction, for a store function that needs one (a savepoint, say). */
export type Transaction = postgres.TransactionSql;

export interface PoolOptions {
  max: number;
  connectTimeoutSeconds: number;
}

export function createPool(url: string, options: PoolOptions): Sql {
  const { driverUrl, servers } = serverChoice(url);
  const sql = postgres(driverUrl, {
    ...sessionAttributes(url),
    max: options.max,
    connect_timeout: options.connectTimeoutSeconds,
    idle_timeout: 60,
    // After failed connections postgres.js waits before the next attempt, by default up to 20 s (3^n / 100 s), and
    // queued queries wait with it: an outage of a few seconds (a restart, a failover) kept requests hanging and the
    // node unusable for up to 20 s after the database returned. Attempts here wait at most half a second; a refused
    // connection costs nothing, and an unreachable server is bounded by connect_timeout per attempt anyway.
    backoff: (retries: number) => Math.min(0.5, 0.02 * 2 ** retries),
    // Notices (e.g. "relation already exists, skipping") are not operator news.
    onnotice: () => {},
    connection: { application_name: 'gatehouse' },
    // A connection lost under load must fail its queries, not strand them (pool-socket.ts). Not in postgres.js's
    // type declarations, though documented in its README.
    ...({ socket: poolSocketFactory(servers) } as object),
  });
  // A transaction whose connection is lost must not make the driver write on the closed socket (transaction-loss.ts).
  return guardTransactions(sql);
}

/**
 * postgres.js (3.4.9) judges `target_session_attrs=read-write` by default_transaction_read_only alone, which a hot
 * standby reports as off, so a multi-host URL kept connections to a standby and every write there failed (seen in
 * test/failover/patroni.test.ts after a switchover). libpq's read-write refuses a standby; the driver's `primary`,
 * judged by in_hot_standby, is that meaning, so a URL asking for read-write gets it.
 */
function sessionAttributes(url: string): { target_session_attrs?: 'primary' } {
  const asked = parseDatabaseUrl(url)?.first.searchParams.get('target_session_attrs');
  return asked === 'read-write' ? { target_session_attrs: 'primary' } : {};
}

/** For several servers, the driver gets the URL with the first only and the socket factory the list (pool-socket.ts). */
function serverChoice(url: string): { driverUrl: string; servers?: Server[] } {
  const parsed = parseDatabaseUrl(url);
  if (!parsed || parsed.hosts.length < 2) return { driverUrl: url };
  const servers = parsed.hosts.map((written) => {
    const server = new URL(`postgres://${written}`);
    return { host: server.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(server.port || 5432) };
  });
  return { driverUrl: parsed.first.toString(), servers };
}

export { redactDatabaseUrl } from '../config/database-url.ts';

/** The PostgreSQL server's version string, for the status report and `gatehouse doctor`. */
export async function serverVersion(sql: Executor): Promise<string> {
  const [row] = await sql<{ version: string }[]>`select current_setting('server_version') as version`;
  return row?.version ?? 'unknown';
}
