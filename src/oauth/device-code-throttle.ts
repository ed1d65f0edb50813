// Throttling of user-code guessing on /device (RFC 8628 §5.1): wrong codes are counted per person (every session of
// theirs together) and for everyone together, in the fixed-window request counters every node shares
// (http/store.ts, as the sign-in start limit uses), 15 minutes from a window's first failure. Once a budget is used
// up, every code entry is refused until its window ends, a right one too. A right code costs one read; a wrong one
// that read and two upserts. Counters are not cleared by a right code: a guesser who starts device flows of their own
// could otherwise reset their budget between guesses.
//
// Not the sign-in lockout's doubling locks (login/local/lockout.ts): the overall counter is shared by everyone, and a
// lock that doubled would outlive a burst by hours; a window ends on its own (docs/decisions.md).
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { RateLimited } from '../http/errors.ts';
import { countRequest, readRequestCounts } from '../http/store.ts';
import type { AttemptContext } from '../login/local/deps.ts';

export const GUESS_WINDOW_SECONDS = 15 * 60;
const BUCKET = 'device_user_code';
const OVERALL = 'overall';
const REFUSED = 'Too many wrong codes; wait a few minutes and try again.';

export interface GuessLimits {
  perPerson: number;
  overall: number;
}

export interface DeviceCodeThrottle {
  /** 429 when the person or everyone together used up their window's wrong codes. */
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
  const personKey = (identityId: string) => `person:${identityId}`;
  const secondsLeft = (windowStart: Date, now: Date) =>
    (windowStart.getTime() + GUESS_WINDOW_SECONDS * 1000 - now.getTime()) / 1000;

  return {
    async admit(identityId) {
      const now = deps.clock();
      const counts = await readRequestCounts(
        deps.sql,
        BUCKET,
        [personKey(identityId), OVERALL],
        GUESS_WINDOW_SECONDS,
        now,
      );
      const person = counts.get(personKey(identityId));
      const overall = counts.get(OVERALL);
      const full = [
        person && person.count >= deps.limits.perPerson ? person : null,
        overall && overall.count >= deps.limits.overall ? overall : null,
      ].filter((w) => w !== null);
      if (full.length === 0) return;
      throw new RateLimited(Math.max(...full.map((w) => secondsLeft(w.windowStart, now))), REFUSED);
    },
    async failed(identityId, context) {
      const now = deps.clock();
      const person = await countRequest(deps.sql, BUCKET, personKey(identityId), GUESS_WINDOW_SECONDS, now);
      const overall = await countRequest(deps.sql, BUCKET, OVERALL, GUESS_WINDOW_SECONDS, now);
      // Audited once per budget and window: when this failure used it up.
      const personFull = person.count === deps.limits.perPerson;
      const overallFull = overall.count === deps.limits.overall;
      if (!personFull && !overallFull) return;
      await deps.audit.record({
        event: 'oauth.device_user_code_throttled',
        actor: identityId,
        ...context,
        details: { budget: overallFull ? 'overall' : 'person' },
      });
    },
  };
}
