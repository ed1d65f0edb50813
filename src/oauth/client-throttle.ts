// Throttling of client-secret guessing (DESIGN.md "Security invariants": every sign-in factor, the client secret
// included, per account and per IP). A failed client authentication is counted against the client and against the
// address, with the sign-in counters and rules in PostgreSQL (so limits hold across nodes), in a namespace of its
// own. Failures are counted after the secret was checked, not before as at sign-in, so a success costs no database
// write on the token and introspection hot paths (docs/decisions.md).
//
// - Per address: once an address is locked, a node that has seen it locked refuses its requests before looking at
//   any client or secret, until the lock ends. Guessing from that address stops there.
// - Per client: once a client is locked, failed attempts for it answer 429 and are audited; a right secret is still
//   accepted from an address that is not locked. Otherwise anyone who knows a client id (it is in every token the
//   client gets) could shut the client out.
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { RateLimited } from '../http/errors.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import { THROTTLE_RULES } from '../login/local/lockout.ts';
import { admitThrottledAttempt, findThrottleLock } from '../login/local/store.ts';
import { BoundedMap } from './bounded-map.ts';

const ADDRESSES_REMEMBERED = 10_000;
/** Client ids are at most this long; a longer one is counted under its first characters (keys are indexed). */
const MAX_KEYED_ID = 64;
const REFUSED = 'Too many failed client authentications; retry later.';

export interface ClientThrottle {
  /** 429 when this node saw the address locked: nothing of the request is looked at. */
  refuseLockedAddress(context: AttemptContext): void;
  /** Counts a failed authentication; 429 (audited) when the client or the address is locked. */
  failed(clientId: string, context: AttemptContext): Promise<void>;
}

export function createClientThrottle(deps: { sql: Sql; audit: Audit; clock: () => Date }): ClientThrottle {
  const lockedUntil = new BoundedMap<string, number>(ADDRESSES_REMEMBERED);
  const remember = (address: string, until: Date | null) => {
    if (until) lockedUntil.set(address, until.getTime());
  };
  return {
    refuseLockedAddress(context) {
      const until = lockedUntil.get(context.clientIp);
      if (until === undefined) return;
      const left = until - deps.clock().getTime();
      if (left > 0) throw new RateLimited(left / 1000, REFUSED);
      lockedUntil.delete(context.clientIp);
    },
    async failed(clientId, context) {
      const now = deps.clock();
      const keys = { account: `client:${clientId.slice(0, MAX_KEYED_ID)}`, ip: `client:${context.clientIp}` };
      const admission = await admitThrottledAttempt(deps.sql, keys, THROTTLE_RULES, now);
      // This very attempt may have set the address lock: the ones after it are refused up front.
      remember(context.clientIp, admission.ipLockSet);
      if (admission.admitted) return;
      remember(context.clientIp, await findThrottleLock(deps.sql, 'ip', keys.ip, now));
      await deps.audit.record({ event: 'attempt.throttled', ...context, details: { key: keys.account } });
      throw new RateLimited(admission.retryAfterSeconds, REFUSED);
    },
  };
}
