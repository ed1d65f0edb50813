// POST /account/email/verify: the one-time secret from the sign-up message activates the identity, with only the
// password the link holder showed or chose (signup-password.ts). Whatever else a pending identity might hold (a
// second factor, a passkey, a linked provider account, a wallet or any other sign-in method, a session, an OAuth
// grant) was never proven by the mailbox owner, so it does not survive the activation: today no path gives a pending
// identity any of these, and this keeps it so if one ever does.
import type { Executor } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { activatePendingIdentity, deleteSignInMethodsButPassword } from '../identity/store.ts';
import {
  deleteTotpAndRecoveryCodes,
  findPasswordLogin,
  upsertPasswordCredential,
} from '../login/local/credential-store.ts';
import { revokeGrantsOfIdentity } from '../oauth/revocation.ts';
import { revokeIdentitySessions } from '../session/store.ts';
import { verificationError } from '../verification/errors.ts';
import { findVerification } from '../verification/store.ts';
import { consumeVerification, refuseConsumedVerification } from '../verification/verification.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { decideSignupPassword, type SignupPassword, type SignupProof } from './signup-password.ts';

export interface SignupVerification extends SignupProof {
  verificationId: string;
  secret: string;
}

export async function verifySignupEmail(
  deps: AccountDeps,
  facts: RequestFacts,
  input: SignupVerification,
): Promise<{ identityId: Sub; passwordSet: boolean }> {
  const now = deps.clock();
  const named = await findVerification(deps.sql, input.verificationId);
  const pending = named?.purpose === 'signup' ? { identityId: named.identity_id, email: named.email } : null;
  const password = await decideSignupPassword(deps, pending, input);
  // Consumption counts a failed attempt, so a failure commits first and is reported after.
  const result = await deps.sql.begin(async (tx) => {
    const consumed = await consumeVerification(tx, { ...input, purpose: 'signup' }, now);
    if (!consumed.ok) return consumed;
    // The secret was right: only now may the answer say the password was not (the link holder asked).
    if (password.outcome === 'mismatch') {
      const next = await refuseConsumedVerification(tx, input.verificationId);
      return { ok: false as const, reason: next === 'retry' ? ('mismatch' as const) : ('attempts_exceeded' as const) };
    }
    if (!(await activatePendingIdentity(tx, consumed.identityId, consumed.email, now)))
      throw new GatehouseError('verification_invalid', 'This account is already verified.');
    await keepOnlyProvenCredentials(tx, consumed.identityId, password, now);
    return consumed;
  });
  if (!result.ok)
    throw result.reason === 'mismatch'
      ? new GatehouseError('signup_password_mismatch')
      : verificationError(result.reason);
  await deps.audit.record({
    event: 'signup.verified',
    actor: result.identityId,
    subject: result.identityId,
    ...facts,
    details: { password: password.outcome },
  });
  return { identityId: result.identityId, passwordSet: password.outcome !== 'unset' };
}

async function keepOnlyProvenCredentials(tx: Executor, identityId: Sub, password: SignupPassword, now: Date) {
  if (password.outcome === 'chosen' || password.outcome === 'unset') {
    const login = await findPasswordLogin(tx, identityId);
    if (login) await upsertPasswordCredential(tx, login.methodId, identityId, password.phc);
  }
  await deleteSignInMethodsButPassword(tx, identityId);
  await deleteTotpAndRecoveryCodes(tx, identityId);
  await revokeIdentitySessions(tx, identityId, now);
  await revokeGrantsOfIdentity(tx, identityId, now);
}
