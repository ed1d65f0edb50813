// The only SQL for oauth_used_jtis: single-use JWT ids shared by every node (DPoP proofs, RFC 9449 §11.1; client
// assertions, RFC 7523 §3). One INSERT decides: of two nodes seeing the same jti, exactly one wins. Requests reach it
// through jti-replay-guard.ts, which puts the keys of concurrent requests into one statement.
import { hash } from 'node:crypto';
import type { Executor } from '../db/pool.ts';

export interface UsedJti {
  key: string;
  /** When the JWT could no longer be accepted anyway: housekeeping may forget the key then. */
  expiresAt: Date;
}

/**
 * What the table stores for a key: its SHA-256, a short fixed-size value the unique index compares with memcmp
 * (migration 0035). Hex, because that is how it crosses to PostgreSQL (`decode(…, 'hex')`) and comes back.
 */
export const storedKey = (key: string): string => hash('sha256', key, 'hex');

/** Records the keys that were not used before and returns them; a key missing from the answer is a replay. */
export async function insertUsedJtis(sql: Executor, jtis: readonly UsedJti[]): Promise<Set<string>> {
  const rows = jtis.map((jti) => ({ ...jti, stored: storedKey(jti.key) }));
  // In stored-key order (lowercase hex sorts as the bytes do): when two statements (two nodes, each given the same
  // replayed proof among others) insert overlapping keys, each waits on the other's uncommitted index entry; taken in
  // one order no wait can close a cycle, which PostgreSQL would break by failing a whole batch with a deadlock error.
  rows.sort((a, b) => (a.stored < b.stored ? -1 : a.stored > b.stored ? 1 : 0));
  const inserted = await sql<{ key: string }[]>`
    insert into oauth_used_jtis (key, expires_at)
    select decode(key, 'hex'), expires_at
      from unnest(${rows.map((row) => row.stored)}::text[], ${rows.map((row) => row.expiresAt.toISOString())}::timestamptz[])
        as fresh (key, expires_at)
    on conflict (key) do nothing returning encode(key, 'hex') as key`;
  const fresh = new Set(inserted.map((row) => row.key));
  return new Set(rows.filter((row) => fresh.has(row.stored)).map((row) => row.key));
}

/** Housekeeping: a key past its expiry (which callers set beyond the JWT's acceptance, tolerance included) is spent. */
export async function purgeUsedJtis(sql: Executor, now: Date): Promise<number> {
  return (await sql`delete from oauth_used_jtis where expires_at <= ${now}`).count;
}
