// "Recent authentication" for adding and removing passkeys (issue 20): the session signed in within the last
// RECENT_SIGN_IN_SECONDS, or the request carries the current password (checked and throttled as for any other
// re-authentication). A passkey-only account has no password: it signs in again, which a passkey makes quick.
import { GatehouseError } from '../../http/errors.ts';
import type { Session } from '../../session/types.ts';
import type { AttemptContext } from '../local/deps.ts';
import type { PasskeyDeps } from './deps.ts';

/** Ten minutes: covers "sign in, then add a passkey when offered", not a session left open for a day. */
export const RECENT_SIGN_IN_SECONDS = 600;

export async function requireRecentAuthentication(
  deps: PasskeyDeps,
  context: AttemptContext,
  session: Session,
  password: string | undefined,
): Promise<void> {
  if (password !== undefined) return await deps.confirmPassword(context, session.identityId, password);
  const age = (deps.clock().getTime() - session.authTime.getTime()) / 1000;
  if (age > RECENT_SIGN_IN_SECONDS) throw new GatehouseError('reauthentication_required');
}
