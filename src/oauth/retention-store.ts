// The deletes of OAuth housekeeping (retention.ts). Each runs in batches, so a backlog (a first run on a large
// installation) never becomes one long transaction holding locks on the token tables.
import type { Executor } from '../db/pool.ts';

const BATCH = 5000;

async function inBatches(remove: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const removed = await remove();
    total += removed;
    if (removed < BATCH) return total;
  }
}

export function deleteEndedAuthorizationCodes(sql: Executor, before: Date): Promise<number> {
  return inBatches(
    async () =>
      (
        await sql`
          delete from oauth_authorization_codes where code_hash in (
            select code_hash from oauth_authorization_codes where expires_at < ${before} limit ${BATCH})`
      ).count,
  );
}

/** Tokens that expired before `before`, and every token of a grant that ended (revoked or expired) before it. */
export function deleteEndedRefreshTokens(sql: Executor, before: Date): Promise<number> {
  return inBatches(
    async () =>
      (
        await sql`
          delete from oauth_refresh_tokens where token_hash in (
            select r.token_hash from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id
            where r.expires_at < ${before} or g.revoked_at < ${before} or g.expires_at < ${before}
            limit ${BATCH})`
      ).count,
  );
}

export function deleteExpiredRevokedAccessTokens(sql: Executor, now: Date): Promise<number> {
  return inBatches(
    async () =>
      (
        await sql`
          delete from oauth_revoked_access_tokens where jti in (
            select jti from oauth_revoked_access_tokens where expires_at < ${now} limit ${BATCH})`
      ).count,
  );
}

/** Device codes (RFC 8628) that expired before `before`; a redeemed one is already gone. */
export function deleteEndedDeviceCodes(sql: Executor, before: Date): Promise<number> {
  return inBatches(
    async () =>
      (
        await sql`
          delete from oauth_device_codes where device_code_hash in (
            select device_code_hash from oauth_device_codes where expires_at < ${before} limit ${BATCH})`
      ).count,
  );
}
