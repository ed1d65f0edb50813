// Passkey sign-in (issue 20): options for navigator.credentials.get(), then the assertion verified into a session.
// With a subject the challenge is bound to that identity; without one it is a discoverable-credential challenge
// (usernameless sign-in and browser autofill). Every challenge is single-use, bound to the login cookie and lives
// 5 minutes. Every refusal is audited and changes nothing but the spent challenge.
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/server';
import { hmac, tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import { enforceLimit } from '../../http/rate-limit.ts';
import { normalizeEmail, type Sub } from '../../identity/ids.ts';
import { findIdentity, findVerifiedEmailHolder, touchSignInMethod } from '../../identity/store.ts';
import type { SessionStart } from '../../session/http.ts';
import type { AttemptContext } from '../local/deps.ts';
import { passkeyAssurance } from './assurance.ts';
import { assertPasskeysAvailable, CEREMONY_SECONDS, expiresAt, newChallengeId, webauthn } from './ceremony.ts';
import type { PasskeyDeps } from './deps.ts';
import {
  advanceSignCount,
  consumeChallenge,
  findPasskeyCredential,
  findUserHandle,
  insertChallenge,
  listPasskeys,
  type PasskeyCredential,
} from './store.ts';

export interface SignInStart {
  challengeId: string;
  options: PublicKeyCredentialRequestOptionsJSON;
}

export type RefusalReason =
  | 'login_transaction'
  | 'unknown_credential'
  | 'other_identity'
  | 'assertion'
  | 'counter_regression'
  | 'identity_state'
  | 'user_verification';

/**
 * What every sign-in ceremony asks of the authenticator. A UV passkey is a second factor only because the
 * authenticator checked a PIN or biometric, so an assertion whose UV flag is unset is refused (WebAuthn §7.2 step
 * 17: if user verification was required, the UV flag must be set), never taken as a weaker sign-in.
 */
const USER_VERIFICATION = 'required';

/**
 * A stand-in credential id for a subject with no passkeys (unknown, or known without one): the same for the same
 * subject every time, so the answer's shape does not tell whether the account exists (DESIGN.md "Enumeration
 * safety"). No authenticator holds it, so it can only lead to an ordinary failed sign-in.
 */
const decoyCredential = (deps: PasskeyDeps, subject: string) => ({
  id: hmac(deps.decoyKey, 'passkey-decoy', subject).subarray(0, 32).toString('base64url'),
  transports: ['internal', 'hybrid'] as AuthenticatorTransport[],
});

/** Whose passkeys to ask for: a typed subject, the identity of a partial session (its second step), or anyone's. */
export type SignInTarget = { subject: string } | { identityId: Sub } | null;

export async function startPasskeySignIn(
  deps: PasskeyDeps,
  context: AttemptContext,
  cookie: string,
  target: SignInTarget,
): Promise<SignInStart> {
  assertPasskeysAvailable(deps);
  const now = deps.clock();
  // The same per-IP start budget as POST /auth/login: each start costs a row.
  await enforceLimit(
    deps.sql,
    'passkey_start',
    context.clientIp,
    { limit: deps.config.login.starts_per_ip_per_minute, windowSeconds: 60 },
    now,
    'Too many sign-in starts from this address; retry later.',
  );
  let identityId: Sub | null = null;
  let allowCredentials: { id: string; transports?: AuthenticatorTransport[] }[] | undefined;
  if (target !== null) {
    const normalized = 'subject' in target ? normalizeEmail(target.subject) : target.identityId;
    identityId =
      'identityId' in target
        ? target.identityId
        : ((await findVerifiedEmailHolder(deps.sql, normalized))?.identityId ?? null);
    const owned = identityId ? await listPasskeys(deps.sql, identityId) : [];
    allowCredentials =
      owned.length > 0
        ? owned.map((c) => ({ id: c.credentialId, transports: c.transports as AuthenticatorTransport[] }))
        : [decoyCredential(deps, normalized)];
  }
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: deps.relyingParty.id,
    timeout: CEREMONY_SECONDS * 1000,
    userVerification: USER_VERIFICATION,
    ...(allowCredentials ? { allowCredentials } : {}),
  });
  const challengeId = newChallengeId();
  await insertChallenge(deps.sql, {
    id: challengeId,
    purpose: 'authentication',
    challenge: options.challenge,
    bindingHash: tokenHash(cookie),
    identityId,
    createdAt: now,
    expiresAt: expiresAt(now),
  });
  return { challengeId, options };
}

export interface SignInAnswer {
  challengeId: string;
  cookie: string | null;
  credential: AuthenticationResponseJSON;
}

export async function finishPasskeySignIn(
  deps: PasskeyDeps,
  context: AttemptContext,
  answer: SignInAnswer,
): Promise<SessionStart> {
  assertPasskeysAvailable(deps);
  const now = deps.clock();
  const refuse = async (reason: RefusalReason, who: Sub | null, extra: Record<string, string | number> = {}) => {
    await deps.audit.record({
      event: reason === 'counter_regression' ? 'passkey.counter_regression' : 'signin.failed',
      ...context,
      // A refused assertion proves no one: the actor is unknown, the passkey's owner (if known) the subject.
      actor: null,
      subject: who,
      details: { method: 'passkey', reason, ...extra },
    });
    if (reason === 'login_transaction') throw new GatehouseError('invalid_login_transaction');
    if (reason === 'user_verification') throw new GatehouseError('user_verification_required');
    throw new GatehouseError('invalid_credentials');
  };

  const issued = answer.cookie
    ? await consumeChallenge(
        deps.sql,
        { id: answer.challengeId, purpose: 'authentication', bindingHash: tokenHash(answer.cookie) },
        now,
      )
    : null;
  if (!issued) return await refuse('login_transaction', null);
  const credential = await findPasskeyCredential(deps.sql, answer.credential.id);
  if (!credential) return await refuse('unknown_credential', issued.identityId);
  const owner = credential.identityId;
  // The challenge named someone else, or the authenticator says the credential belongs to another user handle.
  const handle = answer.credential.response.userHandle;
  if (
    (issued.identityId !== null && issued.identityId !== owner) ||
    (handle !== undefined && handle !== (await findUserHandle(deps.sql, owner)))
  )
    return await refuse('other_identity', issued.identityId ?? owner, { credential_owner: owner });
  const verified = await verifyAssertion(deps, answer.credential, issued.challenge, credential);
  if (!verified) return await refuse('assertion', owner);
  const { newCounter, userVerified, credentialBackedUp } = verified;
  // Judged by the flags (DESIGN.md "Assurance"): the options asked for UV, and an assertion without it proves only
  // that someone holds the key. The challenge is spent, so a retry starts a new ceremony.
  if (USER_VERIFICATION === 'required' && !userVerified) return await refuse('user_verification', owner);
  // WebAuthn §6.1.1: a counter that did not grow (when either side keeps one) means a cloned authenticator.
  if ((newCounter > 0 || credential.signCount > 0) && newCounter <= credential.signCount)
    return await refuse('counter_regression', owner, { stored: credential.signCount, presented: newCounter });
  if ((await findIdentity(deps.sql, owner))?.state !== 'active') return await refuse('identity_state', owner);
  const advanced = await advanceSignCount(deps.sql, credential.methodId, credential.signCount, {
    signCount: newCounter,
    backupState: credentialBackedUp,
  });
  // A parallel use of the same counter value won the race: this one is a replay or a clone.
  if (!advanced)
    return await refuse('counter_regression', owner, { stored: credential.signCount, presented: newCounter });
  await touchSignInMethod(deps.sql, credential.methodId, now);
  const assurance = passkeyAssurance(userVerified, credential.backupEligible);
  await deps.audit.record({
    event: 'signin.succeeded',
    ...context,
    actor: owner,
    subject: owner,
    details: { method: 'passkey', method_id: credential.methodId, aal: assurance.aal, amr: assurance.amr.join(' ') },
  });
  // A passkey with user verification is two factors on its own: a complete session (src/login/step-up).
  return { identityId: owner, ...assurance, pending: null, authTime: now };
}

/** The library's checks (challenge, origin, RP ID hash, UP flag, signature), with the counter left to the caller. */
async function verifyAssertion(
  deps: PasskeyDeps,
  response: AuthenticationResponseJSON,
  challenge: string,
  credential: PasskeyCredential,
) {
  try {
    const result = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: deps.relyingParty.origins,
      expectedRPID: deps.relyingParty.id,
      // The counter rule is applied above so that a regression is told apart (and audited) from a bad signature.
      credential: { id: credential.credentialId, publicKey: credential.publicKey, counter: 0 },
      // The UV flag is checked by the caller, so that its absence is told apart (and audited) from a bad signature.
      requireUserVerification: false,
    });
    return result.verified ? result.authenticationInfo : null;
  } catch {
    return null;
  }
}
