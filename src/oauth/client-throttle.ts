// Throttling of client-secret guessing (DESIGN.md "Security invariants": every sign-in factor, the client secret
// included, per account and per IP). A failed client authentication is counted against the client and against the
// address, with the sign-in counters and rules in PostgreSQL (so the limit holds across nodes), in a namespace of
// its own. Once either is locked the failure answers 429, and this node refuses that client from that address
// before looking at any secret until the lock ends: guessing stops there. A success costs no database work, and a
// client under attack from one address keeps working from its own (a lock per client alone would let anyone who
// knows a client id shut it out, and a stale secret during a rotation lock out the instances already updated).
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { RateLimited } from '../http/errors.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import { admitAttempt } from '../login/local/lockout.ts';
import { BoundedMap } from './bounded-map.ts';

const LOCKS_REMEMBERED = 10_000;
const REFUSED = 'Too many failed client authentications; retry later.';

export interface ClientThrottle {
  /** 429 when this node saw `clientId` from this address locked, before any secret is checked. */
  refuseIfLocked(clientId: string, context: AttemptContext): void;
  /** Counts a failed authentication; throws 429 (and remembers the lock) when the client or address is locked. */
  failed(clientId: string, context: AttemptContext): Promise<void>;
}

export function createClientThrottle(deps: { sql: Sql; audit: Audit; clock: () => Date }): ClientThrottle {
  const lockedUntil = new BoundedMap<string, number>(LOCKS_REMEMBERED);
  const pair = (clientId: string, context: AttemptContext) => `${clientId} ${context.clientIp}`;
  return {
    refuseIfLocked(clientId, context) {
      const key = pair(clientId, context);
      const until = lockedUntil.get(key);
      if (until === undefined) return;
      const left = until - deps.clock().getTime();
      if (left > 0) throw new RateLimited(left / 1000, REFUSED);
      lockedUntil.delete(key);
    },
    async failed(clientId, context) {
      const now = deps.clock();
      const keys = { account: `client:${clientId}`, ip: `client:${context.clientIp}` };
      try {
        await admitAttempt(deps.sql, deps.audit, context, keys, now);
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
        lockedUntil.set(pair(clientId, context), now.getTime() + error.retryAfterSeconds * 1000);
        throw new RateLimited(error.retryAfterSeconds, REFUSED);
      }
    },
  };
}
