// The only SQL for federated_transactions (migrations/0021_federated_sign_in.sql).
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';

export type Purpose = 'sign_in' | 'link';

export interface FederatedTransaction {
  provider: string;
  purpose: Purpose;
  /** Who asked to link; null for a sign-in. */
  identityId: Sub | null;
  nonce: string;
  codeVerifier: string;
  returnTo: string;
}

interface Row {
  provider: string;
  purpose: Purpose;
  identity_id: string | null;
  nonce: string;
  code_verifier: string;
  return_to: string;
}

export async function insertFederatedTransaction(
  sql: Executor,
  input: FederatedTransaction & { stateHash: string; cookieHash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await sql`insert into federated_transactions
              (state_hash, cookie_hash, provider, purpose, identity_id, nonce, code_verifier, return_to, created_at,
               expires_at)
            values (${input.stateHash}, ${input.cookieHash}, ${input.provider}, ${input.purpose}, ${input.identityId},
                    ${input.nonce}, ${input.codeVerifier}, ${input.returnTo}, ${input.createdAt}, ${input.expiresAt})`;
}

/**
 * Takes the transaction for this state, once: the DELETE decides atomically, so a replayed or concurrent callback
 * finds nothing. Only the browser holding the cookie can take it; a wrong cookie leaves the row in place, so a
 * stranger who learned the state cannot spend the owner's transaction.
 */
export async function consumeFederatedTransaction(
  sql: Executor,
  stateHash: string,
  cookieHash: string,
  now: Date,
): Promise<FederatedTransaction | null> {
  const [row] = await sql<Row[]>`
    delete from federated_transactions
    where state_hash = ${stateHash} and cookie_hash = ${cookieHash} and expires_at > ${now}
    returning provider, purpose, identity_id, nonce, code_verifier, return_to`;
  if (!row) return null;
  return {
    provider: row.provider,
    purpose: row.purpose,
    identityId: row.identity_id as Sub | null,
    nonce: row.nonce,
    codeVerifier: row.code_verifier,
    returnTo: row.return_to,
  };
}

export async function purgeExpiredFederatedTransactions(sql: Executor, now: Date): Promise<number> {
  const rows = await sql`delete from federated_transactions where expires_at <= ${now} returning 1`;
  return rows.length;
}
