// The only SQL for oauth_used_jtis: single-use JWT ids shared by every node (DPoP proofs, RFC 9449 §11.1; client
// assertions, RFC 7523 §3). One INSERT decides: of two nodes seeing the same jti, exactly one wins. Requests reach it
// through jti-replay-guard.ts, which puts the keys of concurrent requests into one statement.
import type { Executor } from '../db/pool.ts';

export interface UsedJti {
  key: string;
  /** When the JWT could no longer be accepted anyway: housekeeping may forget the key then. */
  expiresAt: Date;
}

/** Records the keys that were not used before and returns them; a key missing from the answer is a replay. */
export async function insertUsedJtis(sql: Executor, jtis: readonly UsedJti[]): Promise<Set<string>> {
  // In key order: when two statements (two nodes, each given the same replayed proof among others) insert
  // overlapping keys, each waits on the other's uncommitted index entry; taken in one order no wait can close a cycle,
  // which PostgreSQL would break by failing a whole batch with a deadlock error.
  const sorted = [...jtis].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const keys = sorted.map((j) => j.key);
  const expiries = sorted.map((j) => j.expiresAt.toISOString());
  const rows = await sql<{ key: string }[]>`
    insert into oauth_used_jtis (key, expires_at)
    select * from unnest(${keys}::text[], ${expiries}::timestamptz[])
    on conflict (key) do nothing returning key`;
  return new Set(rows.map((row) => row.key));
}

/** Housekeeping: a jti past its expiry could not be accepted again anyway. */
export async function purgeUsedJtis(sql: Executor, now: Date): Promise<number> {
  return (await sql`delete from oauth_used_jtis where expires_at <= ${now}`).count;
}
