// POST /account/email/verify: the one-time secret from the sign-up message activates the identity.
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { activatePendingIdentity } from '../identity/store.ts';
import { verificationError } from '../verification/errors.ts';
import { consumeVerification } from '../verification/verification.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

export async function verifySignupEmail(
  deps: AccountDeps,
  facts: RequestFacts,
  input: { verificationId: string; secret: string },
): Promise<{ identityId: Sub }> {
  const now = deps.clock();
  // Consumption counts a failed attempt, so a failure commits first and is reported after.
  const result = await deps.sql.begin(async (tx) => {
    const consumed = await consumeVerification(tx, { ...input, purpose: 'signup' }, now);
    if (consumed.ok && !(await activatePendingIdentity(tx, consumed.identityId, consumed.email, now)))
      throw new GatehouseError('verification_invalid', 'This account is already verified.');
    return consumed;
  });
  if (!result.ok) throw verificationError(result.reason);
  await deps.audit.record({ event: 'signup.verified', actor: result.identityId, subject: result.identityId, ...facts });
  return { identityId: result.identityId };
}
