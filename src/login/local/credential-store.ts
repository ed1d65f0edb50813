// The only SQL for local credentials: passwords, TOTP seeds, recovery codes and owner enrollment tokens.
// Single-use rules (a TOTP step, a recovery code, an enrollment token) are each one conditional UPDATE.
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';

export const PASSWORD_PROVIDER = 'local';

export interface PasswordLogin {
  methodId: string;
  phc: string;
  active: boolean;
  /** The identity's authenticator, read in the same round trip (sign-in needs both). */
  totp: TotpCredential | null;
}

/** The password hash, whether the identity may sign in at all, and its TOTP state: one round trip. */
export async function findPasswordLogin(sql: Executor, identityId: Sub): Promise<PasswordLogin | null> {
  const [row] = await sql<
    { method_id: string; phc: string; state: string; sealed_seed: string | null; confirmed_at: Date | null }[]
  >`
    select p.method_id::text, p.phc, i.state, t.sealed_seed, t.confirmed_at
    from password_credentials p
      join identities i on i.id = p.identity_id
      left join totp_credentials t on t.identity_id = p.identity_id
    where p.identity_id = ${identityId}`;
  if (!row) return null;
  const totp = row.sealed_seed === null ? null : { sealedSeed: row.sealed_seed, confirmed: row.confirmed_at !== null };
  return { methodId: row.method_id, phc: row.phc, active: row.state === 'active', totp };
}

export async function upsertPasswordCredential(sql: Executor, methodId: string, identityId: Sub, phc: string) {
  await sql`
    insert into password_credentials (method_id, identity_id, phc) values (${methodId}, ${identityId}, ${phc})
    on conflict (identity_id) do update set method_id = excluded.method_id, phc = excluded.phc, updated_at = now()`;
}

/** Rehash on login: replaces the hash only if it is still the one that was verified (a concurrent change wins). */
export async function replacePasswordHash(sql: Executor, identityId: Sub, oldPhc: string, newPhc: string) {
  await sql`update password_credentials set phc = ${newPhc}, updated_at = now()
            where identity_id = ${identityId} and phc = ${oldPhc}`;
}

export interface TotpCredential {
  sealedSeed: string;
  confirmed: boolean;
}

export async function findTotpCredential(sql: Executor, identityId: Sub): Promise<TotpCredential | null> {
  const [row] = await sql<{ sealed_seed: string; confirmed_at: Date | null }[]>`
    select sealed_seed, confirmed_at from totp_credentials where identity_id = ${identityId}`;
  return row ? { sealedSeed: row.sealed_seed, confirmed: row.confirmed_at !== null } : null;
}

/** Starts (or restarts) an enrollment; refused (false) when a confirmed authenticator exists. */
export async function upsertPendingTotp(sql: Executor, identityId: Sub, sealedSeed: string): Promise<boolean> {
  const rows = await sql`
    insert into totp_credentials (identity_id, sealed_seed) values (${identityId}, ${sealedSeed})
    on conflict (identity_id) do update set sealed_seed = excluded.sealed_seed, last_used_step = 0, created_at = now()
      where totp_credentials.confirmed_at is null
    returning identity_id`;
  return rows.length > 0;
}

/** Confirms the pending seed that was checked (not one a parallel restart swapped in) and burns the step. */
export async function confirmTotp(sql: Executor, identityId: Sub, sealedSeed: string, step: number, now: Date) {
  const rows = await sql`
    update totp_credentials set confirmed_at = ${now}, last_used_step = ${step}
    where identity_id = ${identityId} and sealed_seed = ${sealedSeed} and confirmed_at is null
    returning identity_id`;
  return rows.length > 0;
}

/** RFC 6238 §5.2: a code is accepted once. Succeeds only for a step later than any used before. */
export async function useTotpStep(sql: Executor, identityId: Sub, step: number): Promise<boolean> {
  const rows = await sql`
    update totp_credentials set last_used_step = ${step}
    where identity_id = ${identityId} and confirmed_at is not null and last_used_step < ${step}
    returning identity_id`;
  return rows.length > 0;
}

export async function deleteTotpAndRecoveryCodes(sql: Executor, identityId: Sub): Promise<void> {
  await sql`delete from totp_credentials where identity_id = ${identityId}`;
  await sql`delete from recovery_codes where identity_id = ${identityId}`;
}

export async function replaceRecoveryCodes(sql: Executor, identityId: Sub, hashes: string[]): Promise<void> {
  await sql`delete from recovery_codes where identity_id = ${identityId}`;
  for (const hash of hashes)
    await sql`insert into recovery_codes (identity_id, code_hash) values (${identityId}, ${hash})`;
}

/** Consumes an unused recovery code atomically: of two parallel uses, one wins. */
export async function consumeRecoveryCode(sql: Executor, identityId: Sub, hash: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update recovery_codes set used_at = ${now}
    where identity_id = ${identityId} and code_hash = ${hash} and used_at is null
    returning code_hash`;
  return rows.length > 0;
}

export async function countUnusedRecoveryCodes(sql: Executor, identityId: Sub): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from recovery_codes where identity_id = ${identityId} and used_at is null`;
  return row?.n ?? 0;
}

/** A fresh link replaces every earlier one for the identity: only the newest link works. */
export async function replaceEnrollmentToken(
  sql: Executor,
  identityId: Sub,
  tokenHash: string,
  now: Date,
  expiresAt: Date,
  mailedTo: string | null = null,
): Promise<void> {
  await sql`delete from enrollment_tokens where identity_id = ${identityId}`;
  await sql`insert into enrollment_tokens (token_hash, identity_id, created_at, expires_at, mailed_to)
            values (${tokenHash}, ${identityId}, ${now}, ${expiresAt}, ${mailedTo})`;
}

/** Spends the link; `mailedTo` is the normalized address it was emailed to, null when it was shown or printed. */
export async function consumeEnrollmentToken(
  sql: Executor,
  tokenHash: string,
  now: Date,
): Promise<{ identityId: Sub; mailedTo: string | null } | null> {
  const [row] = await sql<{ identity_id: string; mailed_to: string | null }[]>`
    update enrollment_tokens set used_at = ${now}
    where token_hash = ${tokenHash} and used_at is null and expires_at > ${now}
    returning identity_id, mailed_to`;
  return row ? { identityId: row.identity_id as Sub, mailedTo: row.mailed_to } : null;
}

/** Whose live enrollment token this is, without using it (a bad password must not burn the link). */
export async function findEnrollmentToken(sql: Executor, tokenHash: string, now: Date): Promise<Sub | null> {
  const [row] = await sql<{ identity_id: string }[]>`
    select identity_id from enrollment_tokens where token_hash = ${tokenHash} and used_at is null and expires_at > ${now}`;
  return row ? (row.identity_id as Sub) : null;
}

/** Whether the identity has an enrollment link that still works (an invitation not yet used, say). */
export async function hasLiveEnrollmentToken(sql: Executor, identityId: Sub, now: Date): Promise<boolean> {
  const [row] = await sql`
    select 1 from enrollment_tokens where identity_id = ${identityId} and used_at is null and expires_at > ${now}`;
  return row !== undefined;
}
