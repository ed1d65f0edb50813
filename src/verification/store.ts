// The only SQL for the verifications table. Consumption is one UPDATE: PostgreSQL re-checks the WHERE clause
// after taking the row lock, so two concurrent consumes of one verification cannot both succeed, and a wrong
// secret's attempt is counted in the same statement that checks it.
import type { Executor } from '../db/pool.ts';
import type { Sub } from '../identity/ids.ts';

export type VerificationPurpose = 'signup' | 'email_change' | 'password_reset';

export interface VerificationRow {
  id: string;
  purpose: VerificationPurpose;
  identity_id: Sub;
  email: string;
  attempts: number;
  max_attempts: number;
  expires_at: Date;
  consumed_at: Date | null;
}

export interface NewVerification {
  id: string;
  purpose: VerificationPurpose;
  identityId: Sub;
  email: string;
  secretHash: string;
  maxAttempts: number;
  expiresAt: Date;
}

/** Ends every open verification of this identity and purpose: only the newest message works. */
export async function expireOpenVerifications(
  sql: Executor,
  identityId: Sub,
  purpose: VerificationPurpose,
  now: Date,
): Promise<void> {
  await sql`
    update verifications set expires_at = ${now}
    where identity_id = ${identityId} and purpose = ${purpose} and consumed_at is null and expires_at > ${now}`;
}

export async function insertVerification(sql: Executor, row: NewVerification, now: Date): Promise<void> {
  await sql`
    insert into verifications (id, purpose, identity_id, email, secret_hash, max_attempts, created_at, expires_at)
    values (${row.id}, ${row.purpose}, ${row.identityId}, ${row.email}, ${row.secretHash}, ${row.maxAttempts},
            ${now}, ${row.expiresAt})`;
}

export interface AttemptRow extends VerificationRow {
  matched: boolean;
}

/**
 * Tries the secret against a live verification (unused, unexpired, attempts left). Returns the row with
 * `matched` when one was live, or null when none was; the caller then reads the row to say why.
 * Only SHA-256 digests of 256-bit secrets are compared here, so comparison timing reveals nothing usable.
 */
export async function attemptVerification(
  sql: Executor,
  id: string,
  purpose: VerificationPurpose,
  secretHash: string,
  now: Date,
): Promise<AttemptRow | null> {
  const [row] = await sql<AttemptRow[]>`
    update verifications set
      attempts = attempts + case when secret_hash = ${secretHash} then 0 else 1 end,
      consumed_at = case when secret_hash = ${secretHash} then ${now}::timestamptz else null end
    where id = ${id} and purpose = ${purpose} and consumed_at is null and expires_at > ${now}
      and attempts < max_attempts
    returning id, purpose, identity_id, email, attempts, max_attempts, expires_at, consumed_at,
      consumed_at is not null as matched`;
  return row ?? null;
}

/**
 * Undoes a consumption that the caller then refused (the secret was right, but something else the person had to
 * show was wrong): the verification is open again with one more attempt counted, as a wrong secret would be.
 */
export async function reopenVerification(
  sql: Executor,
  id: string,
): Promise<{ attempts: number; max_attempts: number } | null> {
  const [row] = await sql<{ attempts: number; max_attempts: number }[]>`
    update verifications set consumed_at = null, attempts = attempts + 1
    where id = ${id} and consumed_at is not null
    returning attempts, max_attempts`;
  return row ?? null;
}

export async function findVerification(sql: Executor, id: string): Promise<VerificationRow | null> {
  const [row] = await sql<VerificationRow[]>`
    select id, purpose, identity_id, email, attempts, max_attempts, expires_at, consumed_at
    from verifications where id = ${id}`;
  return row ?? null;
}

/** Removes verifications used or expired before `before`: they can never succeed again. */
export async function deleteSpentVerifications(sql: Executor, before: Date): Promise<number> {
  const rows = await sql`
    delete from verifications where coalesce(consumed_at, expires_at) < ${before}`;
  return rows.count;
}
