// The only SQL for farcaster_channels (migrations/0029_farcaster_channels.sql).
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';
import type { Purpose } from './store.ts';

export interface OpenChannel {
  nonce: string;
  channelToken: string;
  purpose: Purpose;
  /** Who asked to link; null for a sign-in. */
  identityId: Sub | null;
  expiresAt: Date;
}

interface Row {
  nonce: string;
  channel_token: string;
  purpose: Purpose;
  identity_id: string | null;
  expires_at: Date;
}

const fromRow = (row: Row): OpenChannel => ({
  nonce: row.nonce,
  channelToken: row.channel_token,
  purpose: row.purpose,
  identityId: row.identity_id as Sub | null,
  expiresAt: row.expires_at,
});

export async function insertChannel(
  sql: Executor,
  input: OpenChannel & { cookieHash: string; createdAt: Date },
): Promise<void> {
  await sql`insert into farcaster_channels
              (nonce, cookie_hash, channel_token, purpose, identity_id, created_at, expires_at)
            values (${input.nonce}, ${input.cookieHash}, ${input.channelToken}, ${input.purpose}, ${input.identityId},
                    ${input.createdAt}, ${input.expiresAt})`;
}

/** The browser's open channel with this nonce, unspent and unexpired; null otherwise (a wrong cookie finds nothing). */
export async function findOpenChannel(
  sql: Executor,
  nonce: string,
  cookieHash: string,
  now: Date,
): Promise<OpenChannel | null> {
  const [row] = await sql<Row[]>`
    select nonce, channel_token, purpose, identity_id, expires_at from farcaster_channels
    where nonce = ${nonce} and cookie_hash = ${cookieHash} and consumed_at is null and expires_at > ${now}`;
  return row ? fromRow(row) : null;
}

/**
 * Spends the channel, once: the UPDATE decides atomically (a concurrent second completion re-checks consumed_at under
 * the row lock and finds it set), so only one poll can turn the relay's answer into a session.
 */
export async function consumeChannel(sql: Executor, nonce: string, cookieHash: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update farcaster_channels set consumed_at = ${now}
    where nonce = ${nonce} and cookie_hash = ${cookieHash} and consumed_at is null and expires_at > ${now}
    returning 1`;
  return rows.length === 1;
}

export async function purgeExpiredFarcasterChannels(sql: Executor, now: Date): Promise<number> {
  const rows = await sql`delete from farcaster_channels where expires_at <= ${now} returning 1`;
  return rows.length;
}
