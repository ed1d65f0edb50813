// Adding a second factor (TOTP confirmed, a passkey registered) changes what the identity's other sessions may do
// (docs/identity.md "Second step"): a single-factor session opened while there was none was complete, or waiting
// for enrollment; from now on a sign-in by its method waits for the new factor, so the open ones do too. And a
// session that is not aal2 may add a factor only while the identity holds none: once the owner has one, a session of
// one factor proves itself with it instead of enrolling a factor of its own.
//
// All of it runs in the transaction that stores the factor, after the identity's row is locked. The session settler
// (pending-step.ts) takes the same lock before it reads the factors, so a session being established and a factor
// being added are ordered: either the settler sees the factor, or the update below sees the new session. Two
// concurrent enrollments are ordered too: the second finds the first's factor.
import type { Executor, Sql } from '../../db/pool.ts';
import { GatehouseError } from '../../http/errors.ts';
import { lockIdentity } from '../../identity/store.ts';
import { awaitSecondStepInOtherSessions } from '../../session/store.ts';
import type { Session } from '../../session/types.ts';
import { listSecondFactors } from './second-factors.ts';

/**
 * Refuses a session that is not aal2 once the identity holds a second factor. Checked when an enrollment starts (an
 * early answer) and again, under the lock, when it finishes.
 */
export async function assertMayAddSecondFactor(sql: Executor, session: Session): Promise<void> {
  if (session.aal !== 'aal2' && (await listSecondFactors(sql, session.identityId)).length > 0)
    throw new GatehouseError('second_factor_required');
}

/** Runs `add` (which stores the factor) under those rules; answers its result and how many sessions now wait. */
export async function addSecondFactor<T>(
  sql: Sql,
  session: Session,
  add: (tx: Executor) => Promise<T>,
): Promise<{ added: T; sessionsAwaitingStep: number }> {
  return await sql.begin(async (tx) => {
    await lockIdentity(tx, session.identityId);
    // Read after the lock, so a factor another session committed meanwhile is seen.
    await assertMayAddSecondFactor(tx, session);
    const added = await add(tx);
    const sessionsAwaitingStep = await awaitSecondStepInOtherSessions(tx, session.identityId, session.id);
    return { added, sessionsAwaitingStep };
  });
}
