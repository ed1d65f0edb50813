// Throttling of client-secret guessing (DESIGN.md "Security invariants": every sign-in factor, the client secret
// included, per account and per IP). A failed client authentication is counted against the client and against the
// address, with the sign-in counters and rules in PostgreSQL (so limits hold across nodes), in a namespace of its
// own. Failures are counted after the secret was checked, not before as at sign-in, so a success costs no database
// write on the token and introspection hot paths.
//
// Once the client or the address is locked, failures answer 429 (audited), and the node that saw one refuses that
// client from that address before looking at its secret until the lock ends: guessing a client's secret from an
// address stops there. Other clients from the same address, and the same client from other addresses, keep working:
// a lock on a whole address would let one misconfigured service behind a shared egress address shut out every other
// service there, and a lock on a whole client would let anyone who knows its id (it is in every token the client
// gets) shut it out. Secrets are 256-bit random values, so the guesses this leaves are of no use (docs/decisions.md).
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { RateLimited } from '../http/errors.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import { THROTTLE_RULES } from '../login/local/lockout.ts';
import { admitThrottledAttempt } from '../login/local/store.ts';
import { BoundedMap } from './bounded-map.ts';

const PAIRS_REMEMBERED = 10_000;
/** Client ids are at most this long; a longer one is counted under its first characters (keys are indexed). */
const MAX_KEYED_ID = 64;
const REFUSED = 'Too many failed client authentications; retry later.';

export interface ClientThrottle {
  /** 429 when this node saw the client locked out from this address: its secret is not looked at. */
  refuseIfLocked(clientId: string, context: AttemptContext): void;
  /** Counts a failed authentication; 429 (audited) when the client or the address is locked. */
  failed(clientId: string, context: AttemptContext): Promise<void>;
}

export function createClientThrottle(deps: { sql: Sql; audit: Audit; clock: () => Date }): ClientThrottle {
  const lockedUntil = new BoundedMap<string, number>(PAIRS_REMEMBERED);
  const pair = (clientId: string, context: AttemptContext) => `${clientId.slice(0, MAX_KEYED_ID)} ${context.clientIp}`;
  return {
    refuseIfLocked(clientId, context) {
      // Every token, introspection and revocation request asks; until this node records a lock there is nothing to
      // look up. (An ended lock is dropped only when its pair asks again, so after one the lookup runs every time.)
      if (lockedUntil.size === 0) return;
      const key = pair(clientId, context);
      const until = lockedUntil.get(key);
      if (until === undefined) return;
      const left = until - deps.clock().getTime();
      if (left > 0) throw new RateLimited(left / 1000, REFUSED);
      lockedUntil.delete(key);
    },
    async failed(clientId, context) {
      const now = deps.clock();
      const keys = { account: `client:${clientId.slice(0, MAX_KEYED_ID)}`, ip: `client:${context.clientIp}` };
      const admission = await admitThrottledAttempt(deps.sql, keys, THROTTLE_RULES, now);
      if (admission.admitted) return;
      lockedUntil.set(pair(clientId, context), now.getTime() + admission.retryAfterSeconds * 1000);
      await deps.audit.record({ event: 'attempt.throttled', ...context, details: { key: keys.account } });
      throw new RateLimited(admission.retryAfterSeconds, REFUSED);
    },
  };
}
