// Which errors mean "PostgreSQL is out of reach" rather than "this request failed": a refused or timed-out
// connection, a connection lost mid-query, a server shutting down or starting up, or (after a failover) a pool
// connection still on a server that became a read-only standby. Those answer 503 temporarily_unavailable, so a
// client or load balancer retries, instead of 500 server_error, which says the request itself broke.

/** postgres.js's own codes for a connection that could not be made or was lost. */
const DRIVER_CODES = new Set(['CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

/** Socket errors Node reports when the server cannot be reached or drops the connection. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE']);

/**
 * SQLSTATEs (PostgreSQL Appendix A): class 08 connection exception; 57P01-57P03 admin/crash shutdown and "cannot
 * connect now" (starting up, or in recovery); 53300 too many connections; 25006 read-only transaction, what a write
 * gets on a standby a failover left the pool connected to.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '25006']);

export function isDatabaseUnavailable(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (typeof code !== 'string') return false;
  if (name === 'PostgresError') return code.startsWith('08') || SQLSTATES.has(code);
  return DRIVER_CODES.has(code) || SOCKET_CODES.has(code);
}

/** Seconds a client should wait before retrying: a restart or failover takes seconds, not minutes. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
