// Brute-force throttling for every local sign-in factor (DESIGN.md "Security invariants"): attempts are counted per
// account (the normalized subject, known or not, so unknown subjects behave alike) and per client IP in PostgreSQL,
// so limits hold across nodes and restarts. Past the threshold the lock doubles with each further attempt.
import type { Audit } from '../../audit/audit.ts';
import type { Sql } from '../../db/pool.ts';
import { RateLimited } from '../../http/errors.ts';
import type { AttemptContext } from './deps.ts';
import {
  type Admission,
  admitThrottledAttempt,
  type ConsumedAttempt,
  recordLoginSuccess,
  type ThrottleKeys,
  type ThrottleRule,
} from './store.ts';

/** 5 attempts, then 30 s, 60 s, 120 s … up to 1 h: slows guessing to a few dozen a day per account. */
export const ACCOUNT_RULE: ThrottleRule = { threshold: 5, baseLockSeconds: 30, maxLockSeconds: 3600 };
/** One address may try many accounts a little (a shared NAT); 50 unsuccessful attempts in a day start a lock. */
export const IP_RULE: ThrottleRule = { threshold: 50, baseLockSeconds: 30, maxLockSeconds: 3600 };

export const THROTTLE_RULES = { account: ACCOUNT_RULE, ip: IP_RULE };

/** Refuses an attempt the counter did not admit (429 with Retry-After); otherwise says whether a failure locks. */
export async function refuseIfLocked(
  audit: Audit,
  context: AttemptContext,
  attempt: ConsumedAttempt,
): Promise<{ locksOnFailure: boolean }> {
  const { admission } = attempt;
  if (!admission.admitted) {
    await audit.record({ event: 'signin.throttled', ...context, details: { subject: attempt.subject } });
    throw new RateLimited(admission.retryAfterSeconds, 'Too many sign-in attempts; retry later.');
  }
  // This attempt reached a threshold: if it fails, the lock it set stands (a success clears it).
  return { locksOnFailure: admission.lockedNow };
}

/** For attempts without a login transaction (re-authentication, mail requests): count, or refuse with 429. */
export async function admitAttempt(
  sql: Sql,
  audit: Audit,
  context: AttemptContext,
  keys: ThrottleKeys,
  now: Date,
): Promise<Admission> {
  const admission = await admitThrottledAttempt(sql, keys, THROTTLE_RULES, now);
  if (admission.admitted) return admission;
  await audit.record({ event: 'attempt.throttled', ...context, details: { key: keys.account } });
  throw new RateLimited(admission.retryAfterSeconds, 'Too many attempts; retry later.');
}

/** After a success: `admission` is this attempt's, so a lock the attempt itself set is lifted again. */
export async function clearAttempts(sql: Sql, keys: ThrottleKeys, now: Date, admission: Admission): Promise<void> {
  await recordLoginSuccess(sql, keys, now, admission.ipLockSet);
}
