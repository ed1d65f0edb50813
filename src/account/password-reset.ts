// POST /account/password/forgot and /account/password/reset. Forgot answers the same whether or not the address
// belongs to an account (enumeration-safe); a reset link works once, expires, and ends every session of the account.
import { normalizeEmail } from '../identity/ids.ts';
import { findIdentity, findSignInMethodOwner } from '../identity/store.ts';
import { findPasswordLogin, PASSWORD_PROVIDER, upsertPasswordCredential } from '../login/local/credential-store.ts';
import { revokeIdentitySessions } from '../session/store.ts';
import { verificationError } from '../verification/errors.ts';
import { sendVerification } from '../verification/send-verification.ts';
import { findVerification } from '../verification/store.ts';
import { consumeVerification } from '../verification/verification.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { admitMailRequest } from './mail-throttle.ts';
import { hashAllowedPassword } from './password.ts';

export async function requestPasswordReset(deps: AccountDeps, facts: RequestFacts, email: string): Promise<void> {
  await admitMailRequest(deps, facts, email);
  const now = deps.clock();
  const identityId = await findSignInMethodOwner(deps.sql, 'password', PASSWORD_PROVIDER, normalizeEmail(email));
  const identity = identityId ? await findIdentity(deps.sql, identityId) : null;
  if (identity?.state !== 'active') {
    await deps.audit.record({ event: 'password.reset_requested_unknown', actor: null, subject: null, ...facts });
    return;
  }
  await deps.sql.begin(async (tx) => {
    await sendVerification(
      tx,
      deps.outbox,
      { purpose: 'password_reset', identityId: identity.id, email: email.trim() },
      now,
    );
  });
  await deps.audit.record({ event: 'password.reset_requested', actor: null, subject: identity.id, ...facts });
}

export async function resetPassword(
  deps: AccountDeps,
  facts: RequestFacts,
  input: { verificationId: string; secret: string; password: string },
): Promise<void> {
  const now = deps.clock();
  // The policy is checked before the link is used, so a refused password leaves the link working.
  const pending = await findVerification(deps.sql, input.verificationId);
  const phc = await hashAllowedPassword(deps, input.password, normalizeEmail(pending?.email ?? ''));
  const outcome = await deps.sql.begin(async (tx) => {
    const result = await consumeVerification(
      tx,
      { verificationId: input.verificationId, secret: input.secret, purpose: 'password_reset' },
      now,
    );
    if (!result.ok) return result;
    const login = await findPasswordLogin(tx, result.identityId);
    if (!login) return { ok: false as const, reason: 'invalid' as const };
    await upsertPasswordCredential(tx, login.methodId, result.identityId, phc);
    const revoked = await revokeIdentitySessions(tx, result.identityId, now);
    return { ok: true as const, identityId: result.identityId, revoked };
  });
  if (!outcome.ok) throw verificationError(outcome.reason);
  await deps.audit.record({
    event: 'password.reset',
    actor: outcome.identityId,
    subject: outcome.identityId,
    ...facts,
    details: { sessions_revoked: outcome.revoked },
  });
}
