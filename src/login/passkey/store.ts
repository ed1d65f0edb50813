// The only SQL for passkey credentials, user handles and ceremony challenges. The sign-in method row each
// credential hangs off belongs to src/identity and is written through its rules, never here.
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';

export interface PasskeyCredential {
  methodId: string;
  identityId: Sub;
  credentialId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  signCount: number;
  transports: string[];
  backupEligible: boolean;
  backupState: boolean;
  aaguid: string;
  createdAt: Date;
}

/** A credential with its sign-in method's name and last use, as the account page lists it. */
export interface ListedPasskey extends PasskeyCredential {
  name: string;
  lastUsedAt: Date | null;
}

interface CredentialRow {
  method_id: string;
  identity_id: string;
  credential_id: string;
  public_key: Buffer;
  sign_count: string;
  transports: string[];
  backup_eligible: boolean;
  backup_state: boolean;
  aaguid: string;
  created_at: Date;
}

const toCredential = (row: CredentialRow): PasskeyCredential => ({
  methodId: String(row.method_id),
  identityId: row.identity_id as Sub,
  credentialId: row.credential_id,
  publicKey: new Uint8Array(row.public_key),
  signCount: Number(row.sign_count),
  transports: row.transports,
  backupEligible: row.backup_eligible,
  backupState: row.backup_state,
  aaguid: row.aaguid,
  createdAt: row.created_at,
});

export type NewPasskeyCredential = Omit<PasskeyCredential, 'createdAt'>;

export async function insertPasskeyCredential(sql: Executor, c: NewPasskeyCredential, now: Date): Promise<void> {
  await sql`
    insert into passkey_credentials (method_id, identity_id, credential_id, public_key, sign_count, transports,
                                     backup_eligible, backup_state, aaguid, created_at)
    values (${c.methodId}, ${c.identityId}, ${c.credentialId}, ${Buffer.from(c.publicKey)}, ${c.signCount},
            ${c.transports}, ${c.backupEligible}, ${c.backupState}, ${c.aaguid}, ${now})`;
}

export async function findPasskeyCredential(sql: Executor, credentialId: string): Promise<PasskeyCredential | null> {
  const [row] = await sql<CredentialRow[]>`select * from passkey_credentials where credential_id = ${credentialId}`;
  return row ? toCredential(row) : null;
}

export async function listPasskeys(sql: Executor, identityId: Sub): Promise<ListedPasskey[]> {
  const rows = await sql<(CredentialRow & { label: string; last_used_at: Date | null })[]>`
    select p.*, m.label, m.last_used_at from passkey_credentials p
    join sign_in_methods m on m.id = p.method_id
    where p.identity_id = ${identityId} order by p.created_at, p.method_id`;
  return rows.map((row) => ({ ...toCredential(row), name: row.label, lastUsedAt: row.last_used_at }));
}

/**
 * Records a verified assertion's counter and backup state, only if the stored counter is still the one the
 * assertion was checked against: two parallel uses of one cloned authenticator cannot both pass (WebAuthn §6.1.1).
 */
export async function advanceSignCount(
  sql: Executor,
  methodId: string,
  expected: number,
  next: { signCount: number; backupState: boolean },
): Promise<boolean> {
  const rows = await sql`
    update passkey_credentials set sign_count = ${next.signCount}, backup_state = ${next.backupState}
    where method_id = ${methodId} and sign_count = ${expected}
    returning method_id`;
  return rows.length === 1;
}

/** The identity's user handle, created on first use; concurrent first uses agree on one. */
export async function ensureUserHandle(sql: Executor, identityId: Sub, candidate: string, now: Date): Promise<string> {
  await sql`
    insert into passkey_user_handles (identity_id, user_handle, created_at) values (${identityId}, ${candidate}, ${now})
    on conflict (identity_id) do nothing`;
  const [row] = await sql<{ user_handle: string }[]>`
    select user_handle from passkey_user_handles where identity_id = ${identityId}`;
  if (!row) throw new Error('passkey user handle vanished');
  return row.user_handle;
}

export async function findUserHandle(sql: Executor, identityId: Sub): Promise<string | null> {
  const [row] = await sql<{ user_handle: string }[]>`
    select user_handle from passkey_user_handles where identity_id = ${identityId}`;
  return row?.user_handle ?? null;
}

export type ChallengePurpose = 'registration' | 'authentication';

export interface NewChallenge {
  id: string;
  purpose: ChallengePurpose;
  challenge: string;
  bindingHash: string;
  identityId: Sub | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertChallenge(sql: Executor, c: NewChallenge): Promise<void> {
  await sql`
    insert into passkey_challenges (id, purpose, challenge, binding_hash, identity_id, created_at, expires_at)
    values (${c.id}, ${c.purpose}, ${c.challenge}, ${c.bindingHash}, ${c.identityId}, ${c.createdAt}, ${c.expiresAt})`;
}

/** Consumes a live challenge matching id, purpose and binding in one statement: good for exactly one answer. */
export async function consumeChallenge(
  sql: Executor,
  match: { id: string; purpose: ChallengePurpose; bindingHash: string },
  now: Date,
): Promise<{ challenge: string; identityId: Sub | null } | null> {
  const [row] = await sql<{ challenge: string; identity_id: string | null }[]>`
    update passkey_challenges set consumed_at = ${now}
    where id = ${match.id} and purpose = ${match.purpose} and binding_hash = ${match.bindingHash}
      and consumed_at is null and expires_at > ${now}
    returning challenge, identity_id`;
  return row ? { challenge: row.challenge, identityId: row.identity_id as Sub | null } : null;
}

/** Housekeeping: challenges that expired (answered or not) are of no further use. */
export async function deleteExpiredChallenges(sql: Executor, now: Date): Promise<number> {
  const rows = await sql`delete from passkey_challenges where expires_at <= ${now} returning id`;
  return rows.length;
}
