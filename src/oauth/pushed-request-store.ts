// The only SQL for oauth_pushed_requests (RFC 9126). A request_uri is stored as SHA-256 only, like every token.
import type { Executor } from '../db/pool.ts';

export async function insertPushedRequest(
  sql: Executor,
  p: { requestUriHash: string; clientId: string; params: string; now: Date; expiresAt: Date },
): Promise<void> {
  await sql`
    insert into oauth_pushed_requests (request_uri_hash, client_id, params, created_at, expires_at)
    values (${p.requestUriHash}, ${p.clientId}, ${p.params}, ${p.now}, ${p.expiresAt})`;
}

/**
 * The parameters of an unspent pushed request of this client. The first arrival must come before its expiry; it then
 * stays open for `openFor` (a sign-in and a consent page may take a while) until it produces a code.
 */
export async function openPushedRequest(
  sql: Executor,
  requestUriHash: string,
  clientId: string,
  now: Date,
  openUntil: Date,
): Promise<string | null> {
  const [row] = await sql`
    update oauth_pushed_requests
    set opened_at = coalesce(opened_at, ${now}), expires_at = greatest(expires_at, ${openUntil})
    where request_uri_hash = ${requestUriHash} and client_id = ${clientId} and used_at is null and expires_at > ${now}
    returning params`;
  return row ? (row.params as string) : null;
}

/** Spends a pushed request as its code is issued; false when it was spent already (RFC 9126 §4: one use). */
export async function spendPushedRequest(sql: Executor, requestUriHash: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update oauth_pushed_requests set used_at = ${now}
    where request_uri_hash = ${requestUriHash} and used_at is null and expires_at > ${now} returning request_uri_hash`;
  return rows.length > 0;
}

/** Housekeeping: a pushed request past its expiry can no longer be used. */
export async function purgePushedRequests(sql: Executor, now: Date): Promise<number> {
  return (await sql`delete from oauth_pushed_requests where expires_at <= ${now}`).count;
}
