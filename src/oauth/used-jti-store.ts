// The only SQL for oauth_used_jtis: single-use JWT ids shared by every node (DPoP proofs, RFC 9449 §11.1; client
// assertions, RFC 7523 §3). One INSERT decides: of two nodes seeing the same jti, exactly one wins.
import type { Executor } from '../db/pool.ts';

/** True when `key` was not used before (and now is, until `expiresAt`); false for a replay. */
export async function consumeJti(sql: Executor, key: string, expiresAt: Date): Promise<boolean> {
  const rows = await sql`
    insert into oauth_used_jtis (key, expires_at) values (${key}, ${expiresAt})
    on conflict (key) do nothing returning key`;
  return rows.length > 0;
}

/** Housekeeping: a jti past its expiry could not be accepted again anyway. */
export async function purgeUsedJtis(sql: Executor, now: Date): Promise<number> {
  return (await sql`delete from oauth_used_jtis where expires_at <= ${now}`).count;
}
