// Throttling of user-code guessing on /device (RFC 8628 §5.1): wrong codes are counted per person (every session of
// theirs together) and for everyone together, per fixed 15-minute window in PostgreSQL, so limits hold across nodes.
// A right code costs one read; a wrong one a read and an upsert. Counters are not cleared by a right code: a guesser
// who starts device flows of their own could otherwise reset their budget between guesses.
//
// Fixed windows instead of the sign-in lockout's doubling locks (login/local/lockout.ts): the overall counter is shared
// by everyone, and a lock that doubled would outlive a burst by hours; a window ends on its own (docs/decisions.md).
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { RateLimited } from '../http/errors.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import { addGuessFailure, countGuessFailures } from './device-code-guess-store.ts';

export const GUESS_WINDOW_SECONDS = 15 * 60;
const OVERALL = 'overall';
const REFUSED = 'Too many wrong codes; wait a few minutes and try again.';

export interface GuessLimits {
  perPerson: number;
  overall: number;
}

export interface DeviceCodeThrottle {
  /** 429 when the person or everyone together used up this window's wrong codes. */
  admit(identityId: string, context: AttemptContext): Promise<void>;
  /** Counts a wrong code; the one that uses up a budget is audited, and admit refuses the next ones. */
  failed(identityId: string, context: AttemptContext): Promise<void>;
}

export function createDeviceCodeThrottle(deps: {
  sql: Sql;
  audit: Audit;
  clock: () => Date;
  limits: GuessLimits;
}): DeviceCodeThrottle {
  const windowOf = (now: Date) => {
    const start = Math.floor(now.getTime() / (GUESS_WINDOW_SECONDS * 1000)) * GUESS_WINDOW_SECONDS * 1000;
    return { start: new Date(start), secondsLeft: (start + GUESS_WINDOW_SECONDS * 1000 - now.getTime()) / 1000 };
  };
  const personKey = (identityId: string) => `person:${identityId}`;
  const exhausted = (counts: Map<string, number>, identityId: string) =>
    (counts.get(personKey(identityId)) ?? 0) >= deps.limits.perPerson ||
    (counts.get(OVERALL) ?? 0) >= deps.limits.overall;

  return {
    async admit(identityId) {
      const window = windowOf(deps.clock());
      const counts = await countGuessFailures(deps.sql, [personKey(identityId), OVERALL], window.start);
      if (exhausted(counts, identityId)) throw new RateLimited(window.secondsLeft, REFUSED);
    },
    async failed(identityId, context) {
      const window = windowOf(deps.clock());
      const counts = await addGuessFailure(deps.sql, [personKey(identityId), OVERALL], window.start);
      // Audited once per budget and window: when this failure used it up.
      const person = counts.get(personKey(identityId)) === deps.limits.perPerson;
      const overall = counts.get(OVERALL) === deps.limits.overall;
      if (!person && !overall) return;
      await deps.audit.record({
        event: 'oauth.device_user_code_throttled',
        actor: identityId,
        ...context,
        details: { budget: overall ? 'overall' : 'person' },
      });
    },
  };
}
