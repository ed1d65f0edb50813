// The one rule for partial sessions (DESIGN.md "Assurance is about the person, not the method"): a session that
// waits for a second step can do nothing but that step. Every consumer asks here, through SessionHttp.require (the
// account, passkey and admin routes) or isComplete (the authorization endpoint and link starts, which redirect).
import { GatehouseError } from '../http/errors.ts';
import type { PendingStep, Session } from './types.ts';

/** Which partial sessions a route accepts besides complete ones: none, those waiting for one step, or any. */
export type PartialAllowance = 'none' | PendingStep | 'any';

export const isComplete = (session: Session): boolean => session.pending === null;

/** Refuses a partial session the route does not serve, naming the step that is missing. */
export function assertAllowed(session: Session, allow: PartialAllowance): void {
  if (session.pending === null || allow === 'any' || allow === session.pending) return;
  throw new GatehouseError(session.pending === 'enrollment' ? 'enrollment_required' : 'second_factor_required');
}

/** The hosted page that walks the person through `pending`, coming back to `returnTo` (a local path) after it. */
export function pendingStepPath(pending: PendingStep, returnTo: string): string {
  const page = pending === 'enrollment' ? '/enroll' : '/second-factor';
  return `${page}?${new URLSearchParams({ return_to: returnTo })}`;
}

/** Where a browser goes right after a sign-in that established `session`. */
export const afterSignIn = (session: Session, returnTo: string): string =>
  session.pending === null ? returnTo : pendingStepPath(session.pending, returnTo);
