// Verification issuance, separate from delivery (SPEC.md "Verification delivery"). The account routes issue a
// verification and enqueue the message that carries its secret in one transaction; the person proves receipt
// by presenting the id and the secret once. Only the secret's SHA-256 is stored.
import { randomBytes } from 'node:crypto';
import { randomToken, tokenHash } from '../crypto/primitives.ts';
import type { Executor } from '../db/pool.ts';
import { checkRecipient } from '../delivery/recipient.ts';
import type { Sub } from '../identity/ids.ts';
import {
  attemptVerification,
  deleteSpentVerifications,
  expireOpenVerifications,
  findVerification,
  insertVerification,
  reopenVerification,
  type VerificationPurpose,
} from './store.ts';

export type { VerificationPurpose } from './store.ts';
export const VERIFICATION_PURPOSES: readonly VerificationPurpose[] = ['signup', 'email_change', 'password_reset'];

/** Defaults the account routes may use; a verification sent by mail should not outlive a working day. */
export const DEFAULT_TTL_SECONDS: Record<VerificationPurpose, number> = {
  signup: 86_400,
  email_change: 3_600,
  password_reset: 1_800,
};
export const DEFAULT_MAX_ATTEMPTS = 5;

export interface IssueRequest {
  purpose: VerificationPurpose;
  identityId: Sub;
  /** The address the secret is sent to (for email_change, the new address). */
  email: string;
  ttlSeconds?: number;
  maxAttempts?: number;
}

export interface IssuedVerification {
  verificationId: string;
  /** The one-time secret: put it in the message body and nowhere else (never a log, never a response). */
  secret: string;
  expiresAt: Date;
}

interface Draft extends IssuedVerification {
  email: string;
  maxAttempts: number;
}

function draftVerification(request: IssueRequest, now: Date): Draft {
  const ttlSeconds = request.ttlSeconds ?? DEFAULT_TTL_SECONDS[request.purpose];
  const maxAttempts = request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 60 || ttlSeconds > 604_800)
    throw new RangeError('ttlSeconds must be an integer from 60 to 604800');
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > 100)
    throw new RangeError('maxAttempts must be an integer from 1 to 100');
  return {
    // Bounds and injection only: whether a single-label domain is acceptable is the instance's rule, applied where
    // the address was typed (account/address.ts) and again where the message is queued (delivery/outbox.ts).
    email: checkRecipient(request.email, { localAddresses: true }),
    verificationId: `vrf_${randomBytes(16).toString('base64url')}`,
    secret: randomToken(),
    expiresAt: new Date(now.getTime() + ttlSeconds * 1000),
    maxAttempts,
  };
}

/** Issues a verification; any earlier open one of the same identity and purpose stops working. */
export async function issueVerification(sql: Executor, request: IssueRequest, now: Date): Promise<IssuedVerification> {
  const draft = draftVerification(request, now);
  await expireOpenVerifications(sql, request.identityId, request.purpose, now);
  await insertVerification(
    sql,
    {
      id: draft.verificationId,
      purpose: request.purpose,
      identityId: request.identityId,
      email: draft.email,
      secretHash: tokenHash(draft.secret),
      maxAttempts: draft.maxAttempts,
      expiresAt: draft.expiresAt,
    },
    now,
  );
  return { verificationId: draft.verificationId, secret: draft.secret, expiresAt: draft.expiresAt };
}

/**
 * The work of issueVerification for a request that must not store anything (an address with no account, so
 * forgot-password answers in comparable time either way): the same checks and hashing, and the same number of
 * statements, which match no row. The returned secret works nowhere.
 */
export async function rehearseVerification(
  sql: Executor,
  request: IssueRequest,
  now: Date,
): Promise<IssuedVerification> {
  const draft = draftVerification(request, now);
  tokenHash(draft.secret);
  await expireOpenVerifications(sql, request.identityId, request.purpose, now);
  await findVerification(sql, draft.verificationId);
  return { verificationId: draft.verificationId, secret: draft.secret, expiresAt: draft.expiresAt };
}

export interface ConsumeRequest {
  verificationId: string;
  secret: string;
  purpose: VerificationPurpose;
}

export type VerificationFailure = 'invalid' | 'expired' | 'attempts_exceeded';

export type ConsumeResult =
  | { ok: true; identityId: Sub; email: string; purpose: VerificationPurpose }
  | { ok: false; reason: VerificationFailure };

const MAX_INPUT_LENGTH = 128;

/**
 * Consumes a verification once. Unknown ids, wrong purposes, wrong secrets and already-used verifications are
 * all `invalid`, so the answer reveals nothing more than the caller already knows; a wrong secret counts an
 * attempt, and the attempt that reaches the limit answers `attempts_exceeded`.
 */
export async function consumeVerification(sql: Executor, request: ConsumeRequest, now: Date): Promise<ConsumeResult> {
  const { verificationId, secret, purpose } = request;
  if (verificationId.length > MAX_INPUT_LENGTH || secret.length > MAX_INPUT_LENGTH || secret === '')
    return { ok: false, reason: 'invalid' };
  const attempt = await attemptVerification(sql, verificationId, purpose, tokenHash(secret), now);
  if (attempt?.matched) return { ok: true, identityId: attempt.identity_id, email: attempt.email, purpose };
  if (attempt) return { ok: false, reason: attempt.attempts >= attempt.max_attempts ? 'attempts_exceeded' : 'invalid' };

  const row = await findVerification(sql, verificationId);
  if (!row || row.purpose !== purpose || row.consumed_at) return { ok: false, reason: 'invalid' };
  if (row.attempts >= row.max_attempts) return { ok: false, reason: 'attempts_exceeded' };
  return { ok: false, reason: 'expired' };
}

/**
 * Takes back a successful consumption in the same transaction, for a caller that asks for more than the secret (a
 * sign-up's password, account/signup-password.ts): the attempt counts like a wrong secret, and the answer says
 * whether the verification can still be used.
 */
export async function refuseConsumedVerification(
  sql: Executor,
  verificationId: string,
): Promise<'retry' | 'attempts_exceeded'> {
  const row = await reopenVerification(sql, verificationId);
  return row && row.attempts < row.max_attempts ? 'retry' : 'attempts_exceeded';
}

/** Housekeeping: forget verifications spent more than `keepDays` ago (kept a while for support questions). */
export function purgeSpentVerifications(sql: Executor, now: Date, keepDays = 30): Promise<number> {
  return deleteSpentVerifications(sql, new Date(now.getTime() - keepDays * 86_400_000));
}
