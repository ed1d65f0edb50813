// The only SQL for web3_messages (migrations/0027_web3_sign_in.sql).
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';

export type Purpose = 'sign_in' | 'link';

export interface IssuedMessage {
  provider: string;
  purpose: Purpose;
  /** Who asked to link; null for a sign-in. */
  identityId: Sub | null;
  /** The exact EIP-4361 text the server issued. */
  message: string;
}

interface Row {
  provider: string;
  purpose: Purpose;
  identity_id: string | null;
  message: string;
}

export async function insertIssuedMessage(
  sql: Executor,
  input: IssuedMessage & { nonce: string; cookieHash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await sql`insert into web3_messages
              (nonce, cookie_hash, provider, purpose, identity_id, message, created_at, expires_at)
            values (${input.nonce}, ${input.cookieHash}, ${input.provider}, ${input.purpose}, ${input.identityId},
                    ${input.message}, ${input.createdAt}, ${input.expiresAt})`;
}

/**
 * Spends the message with this nonce, once: the UPDATE decides atomically (the row lock makes a concurrent second
 * completion re-check consumed_at and find it set), so a replay finds nothing. Only the browser holding the login
 * cookie can spend it; a wrong cookie leaves the row unspent, so a stranger who saw the message cannot burn it.
 */
export async function consumeIssuedMessage(
  sql: Executor,
  nonce: string,
  cookieHash: string,
  now: Date,
): Promise<IssuedMessage | null> {
  const [row] = await sql<Row[]>`
    update web3_messages set consumed_at = ${now}
    where nonce = ${nonce} and cookie_hash = ${cookieHash} and consumed_at is null and expires_at > ${now}
    returning provider, purpose, identity_id, message`;
  if (!row) return null;
  return {
    provider: row.provider,
    purpose: row.purpose,
    identityId: row.identity_id as Sub | null,
    message: row.message,
  };
}

export async function purgeExpiredWeb3Messages(sql: Executor, now: Date): Promise<number> {
  const rows = await sql`delete from web3_messages where expires_at <= ${now} returning 1`;
  return rows.length;
}
