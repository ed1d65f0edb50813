// Decides, for every session about to start, whether it is complete or waits for a second step (DESIGN.md
// "Assurance is about the person, not the method"; docs/identity.md "Second step"). Sign-in methods only say what
// they proved (aal and amr); this rule, run by SessionHttp.establish for all of them, adds what the person holds:
// - two factors proved (aal2): complete; after a partial session of the same identity, its amr is kept too, so
//   `amr` says everything that was done (RFC 8176 §1: the methods used in the authentication);
// - one factor, and the identity has a second factor: waits for it (`second_factor`);
// - one factor, no second factor, and the method asked for enrollment (a password) or the organization requires a
//   second factor of everyone (login.require_second_factor): waits for enrollment;
// - otherwise complete at aal1.
import type { Executor } from '../../db/pool.ts';
import { lockIdentity } from '../../identity/store.ts';
import type { SessionStart } from '../../session/http.ts';
import type { Session } from '../../session/types.ts';
import { listSecondFactors } from './second-factors.ts';

export function createSessionSettler(options: { requireSecondFactor: boolean }) {
  return async (sql: Executor, start: SessionStart, previous: Session | null): Promise<SessionStart> => {
    if (start.aal === 'aal2') {
      const followsStep = previous?.pending != null && previous.identityId === start.identityId;
      const amr = followsStep ? [...new Set([...previous.amr, ...start.amr])] : start.amr;
      return { ...start, amr, pending: null };
    }
    // Locked before the factors are read, as adding a factor locks it (new-second-factor.ts): a factor added
    // meanwhile is either seen here or sees this session. SessionHttp.establish runs this in its transaction.
    await lockIdentity(sql, start.identityId);
    if ((await listSecondFactors(sql, start.identityId)).length > 0) return { ...start, pending: 'second_factor' };
    if (start.pending === 'enrollment' || options.requireSecondFactor) return { ...start, pending: 'enrollment' };
    return { ...start, pending: null };
  };
}
