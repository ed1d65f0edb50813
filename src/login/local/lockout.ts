// Brute-force throttling for every local sign-in factor (DESIGN.md "Security invariants"): attempts are counted per
// account (the normalized subject, known or not, so unknown subjects behave alike) and per client IP in PostgreSQL,
// so limits hold across nodes and restarts. Past the threshold the lock doubles with each further attempt.
//
// The account counter is the budget of unknown clients only: a browser holding a device cookie for the subject
// (known-device.ts) is charged to a counter of its own, so strangers' failures cannot lock the owner out, and one
// known browser's failures lock only that browser. The IP counter applies to every attempt.
import type { Audit } from '../../audit/audit.ts';
import type { Sql } from '../../db/pool.ts';
import { RateLimited } from '../../http/errors.ts';
import type { AttemptContext } from './deps.ts';
import { knownDeviceId } from './known-device.ts';
import {
  type AccountBudget,
  type Admission,
  admitThrottledAttempt,
  type ConsumedAttempt,
  findLoginTransactionSubject,
  recordLoginSuccess,
  type ThrottleKeys,
  type ThrottleRule,
  type TransactionMatch,
} from './store.ts';

/** 5 attempts, then 30 s, 60 s, 120 s … up to 1 h: slows guessing to a few dozen a day per account. */
export const ACCOUNT_RULE: ThrottleRule = { threshold: 5, baseLockSeconds: 30, maxLockSeconds: 3600 };
/** One address may try many accounts a little (a shared NAT); 50 unsuccessful attempts in a day start a lock. */
export const IP_RULE: ThrottleRule = { threshold: 50, baseLockSeconds: 30, maxLockSeconds: 3600 };
/**
 * A known browser's own budget, per device cookie entry: the same numbers as the account's, so stealing a device
 * cookie buys a guesser no more than the unknown clients get, and the owner's typos lock only their own browser.
 */
export const DEVICE_RULE: ThrottleRule = ACCOUNT_RULE;

export const THROTTLE_RULES = { account: ACCOUNT_RULE, ip: IP_RULE };

const UNKNOWN_CLIENTS: AccountBudget = { scope: 'account', key: null, rule: ACCOUNT_RULE };

/**
 * The budget a verify attempt is charged to: its known device's when the browser holds an authentic entry for the
 * transaction's subject, else the unknown clients'. The subject is read first (it never changes once written); the
 * count itself stays the one consuming statement, so the choice adds no race.
 */
export async function budgetFor(
  sql: Sql,
  deviceKey: Buffer,
  match: TransactionMatch | null,
  deviceCookie: string | null,
  now: Date,
): Promise<AccountBudget> {
  if (!match || !deviceCookie) return UNKNOWN_CLIENTS;
  const subject = await findLoginTransactionSubject(sql, match, now);
  const id = subject === null ? null : knownDeviceId(deviceKey, deviceCookie, subject, now);
  return id ? { scope: 'device', key: id, rule: DEVICE_RULE } : UNKNOWN_CLIENTS;
}

/** What audit records call a budget: the unknown clients' or one known device's. */
export const budgetName = (budget: AccountBudget) => (budget.scope === 'device' ? 'known_device' : 'unknown_clients');

/** Refuses an attempt the counter did not admit (429 with Retry-After); otherwise says whether a failure locks. */
export async function refuseIfLocked(
  audit: Audit,
  context: AttemptContext,
  attempt: ConsumedAttempt,
  budget: AccountBudget,
): Promise<{ locksOnFailure: boolean }> {
  const { admission } = attempt;
  if (!admission.admitted) {
    const details = { subject: attempt.subject, budget: budgetName(budget) };
    await audit.record({ event: 'signin.throttled', ...context, details });
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
  const rules = keys.scope === 'device' ? { account: DEVICE_RULE, ip: IP_RULE } : THROTTLE_RULES;
  const admission = await admitThrottledAttempt(sql, keys, rules, now);
  if (admission.admitted) return admission;
  // A known device's counter key is its cookie entry's id: the record names the budget, not the id.
  const details: Record<string, string> = keys.scope === 'device' ? { budget: 'known_device' } : { key: keys.account };
  await audit.record({ event: 'attempt.throttled', ...context, details });
  throw new RateLimited(admission.retryAfterSeconds, 'Too many attempts; retry later.');
}

/**
 * After a success: `admission` is this attempt's, so a lock the attempt itself set is lifted again. Only the budget
 * the attempt was charged to is cleared: a known device's success leaves the unknown clients' lock in force.
 */
export async function clearAttempts(sql: Sql, keys: ThrottleKeys, now: Date, admission: Admission): Promise<void> {
  await recordLoginSuccess(sql, keys, now, admission.ipLockSet);
}
