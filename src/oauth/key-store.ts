// The only SQL for oauth_signing_keys. Rotation is one transaction, so every node sees either the old or the new
// key set, never a set without an active key.
import type { JWK } from 'jose';
import type { Executor, Sql } from '../db/pool.ts';
import { TOKEN_STATE_CHANNEL } from './token-state-listener.ts';

/**
 * The payload a rotation sends on the token state channel, in its transaction: every listening node reloads its key
 * set at once instead of within KEY_RELOAD_SECONDS. No token state key has this form.
 */
export const SIGNING_KEYS_CHANGED = 'signing-keys';

export interface StoredSigningKey {
  kid: string;
  publicJwk: JWK;
  /** Null for the initial key, whose private half lives in the secrets directory. */
  privateKeySealed: string | null;
  createdAt: Date;
  retiredAt: Date | null;
}

interface Row {
  kid: string;
  public_jwk: JWK;
  private_key_sealed: string | null;
  created_at: Date;
  retired_at: Date | null;
}

export async function listSigningKeys(sql: Executor): Promise<StoredSigningKey[]> {
  const rows = await sql<Row[]>`select * from oauth_signing_keys order by created_at`;
  return rows.map((r) => ({
    kid: r.kid,
    publicJwk: r.public_jwk,
    privateKeySealed: r.private_key_sealed,
    createdAt: r.created_at,
    retiredAt: r.retired_at,
  }));
}

export interface NewSigningKey {
  kid: string;
  publicJwk: JWK;
  privateKeySealed: string;
}

/**
 * Adds `added` as the newest key and retires every other active one, including the initial file key (recorded by
 * its public half). Keys retired before `removeBefore` are deleted: no unexpired token can carry them.
 */
export async function insertRotatedSigningKey(
  sql: Sql,
  added: NewSigningKey,
  initial: { kid: string; publicJwk: JWK },
  now: Date,
  removeBefore: Date,
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`update oauth_signing_keys set retired_at = ${now} where retired_at is null`;
    await tx`
      insert into oauth_signing_keys (kid, public_jwk, private_key_sealed, created_at, retired_at)
      values (${initial.kid}, ${tx.json(initial.publicJwk as never)}, null, 'epoch', ${now})
      on conflict (kid) do nothing`;
    await tx`
      insert into oauth_signing_keys (kid, public_jwk, private_key_sealed, created_at)
      values (${added.kid}, ${tx.json(added.publicJwk as never)}, ${added.privateKeySealed}, ${now})`;
    // The initial key's row stays: without it the file key would count as active again.
    await tx`
      delete from oauth_signing_keys
      where retired_at < ${removeBefore} and private_key_sealed is not null`;
    await tx`select pg_notify(${TOKEN_STATE_CHANNEL}, ${SIGNING_KEYS_CHANGED})`;
  });
}
