// POST /account/password/forgot and /account/password/reset. Forgot answers the same, after comparable work,
// whether or not the address belongs to an account (enumeration-safe); the link goes to the address on record,
// not the spelling typed. A reset link works once, expires, and ends every session and every OAuth grant of the
// account: whoever knew the old password must not keep a refresh token either.
import type { Locale } from '../i18n/locales.ts';
import { recipientLocale } from '../i18n/request-locale.ts';
import { newSub, normalizeEmail } from '../identity/ids.ts';
import { findIdentity, findPrimaryEmail, findSignInMethodOwner } from '../identity/store.ts';
import { findPasswordLogin, PASSWORD_PROVIDER, upsertPasswordCredential } from '../login/local/credential-store.ts';
import { revokeGrantsOfIdentity } from '../oauth/revocation.ts';
import { revokeIdentitySessions } from '../session/store.ts';
import { verificationError } from '../verification/errors.ts';
import { rehearseSendVerification, sendVerification } from '../verification/send-verification.ts';
import { findVerification } from '../verification/store.ts';
import { consumeVerification } from '../verification/verification.ts';
import { acceptTypedAddress } from './address.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { admitMailRequest } from './mail-throttle.ts';
import { hashAllowedPassword } from './password.ts';

/** `locale`: the request's language; the link goes out in the account's chosen language if it has one. */
export async function requestPasswordReset(
  deps: AccountDeps,
  facts: RequestFacts,
  typed: string,
  locale: Locale,
): Promise<void> {
  const email = acceptTypedAddress(deps.config, typed, 'body.email');
  await admitMailRequest(deps, facts, email);
  const now = deps.clock();
  const identityId = await findSignInMethodOwner(deps.sql, 'password', PASSWORD_PROVIDER, normalizeEmail(email));
  // Every path makes the same reads and the same transaction: an unknown address (looked up as a fresh id that
  // names nobody) must not answer measurably faster than a known one.
  const nobody = newSub();
  const identity = await findIdentity(deps.sql, identityId ?? nobody);
  const active = identity?.state === 'active' ? identity : null;
  const onRecord = await findPrimaryEmail(deps.sql, active?.id ?? nobody);
  if (!active || !onRecord) {
    // The same read of a saved language as a known account gets, so the two paths stay alike in time.
    await deps.sql.begin(async (tx) =>
      rehearseSendVerification(
        tx,
        deps.outbox,
        { purpose: 'password_reset', identityId: nobody, email },
        now,
        await recipientLocale(tx, nobody, locale),
      ),
    );
    await deps.audit.record({ event: 'password.reset_requested_unknown', actor: null, subject: null, ...facts });
    return;
  }
  await deps.sql.begin(async (tx) => {
    await sendVerification(
      tx,
      deps.outbox,
      { purpose: 'password_reset', identityId: active.id, email: onRecord.address },
      now,
      await recipientLocale(tx, active.id, locale),
    );
  });
  await deps.audit.record({ event: 'password.reset_requested', actor: null, subject: active.id, ...facts });
}

export async function resetPassword(
  deps: AccountDeps,
  facts: RequestFacts,
  input: { verificationId: string; secret: string; password: string },
): Promise<void> {
  const now = deps.clock();
  // The policy is checked before the link is used, so a refused password leaves the link working.
  const pending = await findVerification(deps.sql, input.verificationId);
  const holder = pending ? await findIdentity(deps.sql, pending.identity_id) : null;
  const phc = await hashAllowedPassword(deps, input.password, {
    email: normalizeEmail(pending?.email ?? ''),
    displayName: holder?.displayName,
  });
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
    const grantsRevoked = await revokeGrantsOfIdentity(tx, result.identityId, now);
    return { ok: true as const, identityId: result.identityId, revoked, grantsRevoked };
  });
  if (!outcome.ok) throw verificationError(outcome.reason);
  await deps.audit.record({
    event: 'password.reset',
    actor: outcome.identityId,
    subject: outcome.identityId,
    ...facts,
    details: { sessions_revoked: outcome.revoked, grants_revoked: outcome.grantsRevoked },
  });
}
