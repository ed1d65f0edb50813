// The only SQL for login transactions and sign-in throttling. Each security decision is one statement: a
// transaction is consumed once, and an attempt is counted (and refused while locked) atomically on every node.
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';

export interface NewLoginTransaction {
  id: string;
  challengeId: string;
  cookieHash: string;
  subject: string;
  /** Null for an unknown subject: the row is a decoy that can never succeed. */
  identityId: Sub | null;
  /** Set when the subject's email domain belongs to an LDAP directory: that directory checks the password. */
  directory: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertLoginTransaction(sql: Executor, t: NewLoginTransaction): Promise<void> {
  await sql`
    insert into login_transactions (id, challenge_id, cookie_hash, subject, identity_id, directory, created_at, expires_at)
    values (${t.id}, ${t.challengeId}, ${t.cookieHash}, ${t.subject}, ${t.identityId}, ${t.directory},
            ${t.createdAt}, ${t.expiresAt})`;
}

export interface ThrottleRule {
  /** Attempts admitted in a window before the lock starts. */
  threshold: number;
  /** First lock length; each further attempt while over the threshold doubles it. */
  baseLockSeconds: number;
  maxLockSeconds: number;
}

export interface ThrottleKeys {
  account: string;
  ip: string;
  /** Whose budget `account` names: 'device' for a known browser's own counter (known-device.ts). */
  scope?: AccountScope;
}

/** 'account': every client without a device cookie for the subject; 'device': one known browser. */
export type AccountScope = 'account' | 'device';

/** The counter a verify attempt is charged to besides its IP: the subject's, or a known device's. */
export interface AccountBudget {
  scope: AccountScope;
  /** The device id; null for the transaction's own subject. */
  key: string | null;
  rule: ThrottleRule;
}

export interface Admission {
  admitted: boolean;
  /** When refused: seconds until the longest lock ends. */
  retryAfterSeconds: number;
  /** This attempt started a lock (worth an audit record). */
  lockedNow: boolean;
  /** The IP lock this very attempt set, if any: a success must lift it again (see recordLoginSuccess). */
  ipLockSet: Date | null;
}

/** Counters older than this start again from zero. */
const WINDOW = '1 day';

export interface TransactionMatch {
  id: string;
  challengeId: string;
  cookieHash: string;
}

export interface ConsumedAttempt {
  subject: string;
  /** The throttle key the attempt was charged to (scope 'account' or 'device'); a success clears it. */
  accountKey: string;
  identityId: Sub | null;
  /** The `[ldap.<id>]` directory that checks this attempt's password; null for a local password. */
  directory: string | null;
  admission: Admission;
}

/** The subject of the live transaction matching id, challenge and cookie (it never changes once written). */
export async function findLoginTransactionSubject(
  sql: Executor,
  match: TransactionMatch,
  now: Date,
): Promise<string | null> {
  const [row] = await sql<{ subject: string }[]>`
    select subject from login_transactions
    where id = ${match.id} and challenge_id = ${match.challengeId} and cookie_hash = ${match.cookieHash}
      and consumed_at is null and expires_at > ${now}`;
  return row?.subject ?? null;
}

/**
 * One statement for the start of every verify attempt: consumes the live transaction matching id, challenge and
 * cookie (good for one attempt), and counts the attempt against its budget (the subject's, or a known device's) and
 * the client IP before any credential is checked, so parallel guesses cannot outrun the counter. A key that is
 * locked refuses the attempt; reaching a threshold sets an exponential lock. Null when no live transaction matched
 * (nothing is counted).
 */
export async function consumeLoginAttempt(
  sql: Executor,
  match: TransactionMatch,
  budget: AccountBudget,
  ip: { key: string; rule: ThrottleRule },
  now: Date,
): Promise<ConsumedAttempt | null> {
  const { rule: a } = budget;
  const i = ip.rule;
  const [row] = await sql<
    {
      subject: string;
      account_key: string;
      identity_id: string | null;
      directory: string | null;
      admitted: number;
      locked_now: boolean;
      locked_until: Date | null;
      ip_lock_set: Date | null;
    }[]
  >`
    with tx as (
      update login_transactions set consumed_at = ${now}
      where id = ${match.id} and challenge_id = ${match.challengeId} and cookie_hash = ${match.cookieHash}
        and consumed_at is null and expires_at > ${now}
      returning subject, identity_id, directory
    ),
    attempt as (
      -- A subject's key has a prefix of its own: subjects are typed by anyone, and a bare one such as
      -- 'reauth:<sub>' or 'mail:<address>' would spend the budget of re-authentication or mail requests.
      select coalesce(${budget.key}::text, 'signin:' || tx.subject) as key, ${budget.scope}::text as scope,
             ${a.threshold}::int as threshold, ${a.baseLockSeconds}::float8 as base, ${a.maxLockSeconds}::float8 as cap
      from tx
      union all
      select ${ip.key}::text, 'ip', ${i.threshold}, ${i.baseLockSeconds}, ${i.maxLockSeconds} from tx
    ),
    ${countAttempts(sql, now)}
    select tx.subject, (select key from attempt where scope <> 'ip') as account_key, tx.identity_id, tx.directory,
           (select count(*)::int from counted) as admitted,
           coalesce((select bool_or(locked_until is not null) from counted), false) as locked_now,
           (select locked_until from counted where scope = 'ip') as ip_lock_set,
           -- The statement's snapshot: the locks that held before this attempt (the ones that refused it).
           (select max(l.locked_until) from login_throttle l join attempt at on at.scope = l.scope and at.key = l.key
            where l.locked_until > ${now}) as locked_until
    from tx`;
  if (!row) return null;
  const admitted = row.admitted === 2;
  const until = row.locked_until?.getTime() ?? now.getTime() + 1000;
  return {
    subject: row.subject,
    accountKey: row.account_key,
    identityId: row.identity_id as Sub | null,
    directory: row.directory,
    admission: {
      admitted,
      retryAfterSeconds: admitted ? 0 : Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
      lockedNow: admitted && row.locked_now,
      ipLockSet: admitted ? row.ip_lock_set : null,
    },
  };
}

/**
 * The `counted` CTE shared by every throttled attempt: for each row of an `attempt` CTE (scope, key, threshold,
 * base, cap) it counts one failure-in-waiting, unless that key is locked, and sets an exponential lock when the
 * threshold is reached. Counters older than WINDOW start again from one. Returns the keys it admitted.
 */
function countAttempts(sql: Executor, now: Date) {
  return sql`
    counted as (
      insert into login_throttle as t (scope, key, failures, locked_until, updated_at)
      select scope, key, 1, case when threshold <= 1 then ${now}::timestamptz + make_interval(secs => base) end, ${now}
      from attempt
      on conflict (scope, key) do update set
        failures = case when t.updated_at < ${now}::timestamptz - ${WINDOW}::interval then 1 else t.failures + 1 end,
        locked_until = (
          select case when n.f >= at.threshold
                 then ${now}::timestamptz + make_interval(secs => least(at.base * power(2, n.f - at.threshold), at.cap))
                 end
          from attempt at,
               lateral (select case when t.updated_at < ${now}::timestamptz - ${WINDOW}::interval then 1
                                    else t.failures + 1 end as f) n
          where at.scope = t.scope),
        updated_at = ${now}
      where t.locked_until is null or t.locked_until <= ${now}
      returning scope, locked_until
    )`;
}

/**
 * Counts an attempt that has no login transaction (re-authentication, mail-sending requests, the second step) against
 * both keys, and refuses it when either is locked. Same counters and rules as sign-in; callers choose key namespaces,
 * and `keys.scope` whether `keys.account` is a shared counter or one known device's.
 */
export async function admitThrottledAttempt(
  sql: Executor,
  keys: ThrottleKeys,
  rules: { account: ThrottleRule; ip: ThrottleRule },
  now: Date,
): Promise<Admission> {
  const { account: a, ip: i } = rules;
  const scope = keys.scope ?? 'account';
  const rows = await sql<{ scope: string; locked_until: Date | null }[]>`
    with attempt as (
      select ${keys.account}::text as key, ${scope}::text as scope, ${a.threshold}::int as threshold,
             ${a.baseLockSeconds}::float8 as base, ${a.maxLockSeconds}::float8 as cap
      union all
      select ${keys.ip}, 'ip', ${i.threshold}, ${i.baseLockSeconds}, ${i.maxLockSeconds}
    ),
    ${countAttempts(sql, now)}
    select scope, locked_until from counted`;
  if (rows.length === 2)
    return {
      admitted: true,
      retryAfterSeconds: 0,
      lockedNow: rows.some((r) => r.locked_until !== null),
      ipLockSet: rows.find((r) => r.scope === 'ip')?.locked_until ?? null,
    };
  const [lock] = await sql<{ until: Date | null }[]>`
    select max(locked_until) as until from login_throttle
    where ((scope = ${scope} and key = ${keys.account}) or (scope = 'ip' and key = ${keys.ip}))
      and locked_until > ${now}`;
  const until = lock?.until?.getTime() ?? now.getTime() + 1000;
  return {
    admitted: false,
    retryAfterSeconds: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
    lockedNow: false,
    ipLockSet: null,
  };
}

/**
 * A success clears the account's (or device's) counter and takes this attempt back off the IP's. When this very
 * attempt was the one that reached the IP threshold, the lock it set is lifted too: the attempt turned out not to be a
 * failure, so the address must not stay locked because of it (a later, longer lock set by another attempt is kept).
 */
export async function recordLoginSuccess(
  sql: Executor,
  keys: ThrottleKeys,
  now: Date,
  ipLockSet: Date | null,
): Promise<void> {
  await sql`
    update login_throttle set
      failures = case when scope = 'ip' then greatest(failures - 1, 0) else 0 end,
      locked_until = case
        when scope <> 'ip' then null
        when locked_until <= ${ipLockSet}::timestamptz then null
        else locked_until end,
      updated_at = ${now}
    where (scope = ${keys.scope ?? 'account'} and key = ${keys.account}) or (scope = 'ip' and key = ${keys.ip})`;
}

/** Housekeeping: transactions that expired before `before` can never be used again. */
export async function deleteExpiredLoginTransactions(sql: Executor, before: Date): Promise<number> {
  const rows = await sql`delete from login_transactions where expires_at < ${before} returning id`;
  return rows.length;
}

/**
 * Housekeeping: throttle rows with no lock in force and no attempt within WINDOW. The next attempt would restart
 * such a counter from one anyway (see countAttempts), so deleting them changes no decision.
 */
export async function deleteStaleThrottleRows(sql: Executor, now: Date): Promise<number> {
  const rows = await sql`
    delete from login_throttle
    where updated_at < ${now}::timestamptz - ${WINDOW}::interval and (locked_until is null or locked_until <= ${now})
    returning key`;
  return rows.length;
}
