// Passkey registration (issue 20): options for navigator.credentials.create(), then the browser's answer verified
// and stored as a sign-in method. Needs a full session and recent authentication (see recent-authentication.ts).
import type { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { randomToken, tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import { attachSignInMethodIn } from '../../identity/sign-in-methods.ts';
import { findProfile } from '../../identity/store.ts';
import type { Session } from '../../session/types.ts';
import type { AttemptContext } from '../local/deps.ts';
import { addSecondFactor, assertMayAddSecondFactor } from '../step-up/new-second-factor.ts';
import { assertPasskeysAvailable, CEREMONY_SECONDS, expiresAt, newChallengeId, webauthn } from './ceremony.ts';
import type { PasskeyDeps } from './deps.ts';
import { consumeChallenge, ensureUserHandle, insertChallenge, insertPasskeyCredential, listPasskeys } from './store.ts';

export const PASSKEY_PROVIDER = 'webauthn';

export interface RegistrationStart {
  challengeId: string;
  options: PublicKeyCredentialCreationOptionsJSON;
}

/** Bound to the session, not only the identity: another session of the same person cannot answer it. */
const sessionBinding = (session: Session) => tokenHash(`passkey-registration:${session.id}`);

export async function startRegistration(deps: PasskeyDeps, session: Session): Promise<RegistrationStart> {
  assertPasskeysAvailable(deps);
  await assertMayAddSecondFactor(deps.sql, session);
  const now = deps.clock();
  const identityId = session.identityId;
  const profile = await findProfile(deps.sql, identityId);
  // WebAuthn §14.6.1: the user handle reveals nothing about the person; 32 random bytes, kept per identity.
  const userHandle = await ensureUserHandle(deps.sql, identityId, randomToken(), now);
  const existing = await listPasskeys(deps.sql, identityId);
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: deps.relyingParty.name,
    rpID: deps.relyingParty.id,
    userID: Buffer.from(userHandle, 'base64url'),
    userName: profile?.email ?? identityId,
    userDisplayName: profile?.displayName || profile?.email || identityId,
    timeout: CEREMONY_SECONDS * 1000,
    attestationType: 'none',
    // §5.4.3: an authenticator already holding one of these refuses, instead of creating a duplicate.
    excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
  const challengeId = newChallengeId();
  await insertChallenge(deps.sql, {
    id: challengeId,
    purpose: 'registration',
    challenge: options.challenge,
    bindingHash: sessionBinding(session),
    identityId,
    createdAt: now,
    expiresAt: expiresAt(now),
  });
  return { challengeId, options };
}

export interface RegistrationAnswer {
  challengeId: string;
  name: string | undefined;
  credential: RegistrationResponseJSON;
}

export async function finishRegistration(
  deps: PasskeyDeps,
  context: AttemptContext,
  session: Session,
  answer: RegistrationAnswer,
): Promise<{ methodId: string; name: string }> {
  assertPasskeysAvailable(deps);
  const now = deps.clock();
  const identityId = session.identityId;
  const audit = { ...context, actor: identityId, subject: identityId };
  const issued = await consumeChallenge(
    deps.sql,
    { id: answer.challengeId, purpose: 'registration', bindingHash: sessionBinding(session) },
    now,
  );
  const verified = issued
    ? await (await webauthn())
        .verifyRegistrationResponse({
          response: answer.credential,
          expectedChallenge: issued.challenge,
          expectedOrigin: deps.relyingParty.origins,
          expectedRPID: deps.relyingParty.id,
          requireUserVerification: true,
        })
        .catch(() => null)
    : null;
  if (!verified?.verified) {
    await deps.audit.record({
      event: 'passkey.registration_failed',
      ...audit,
      details: { reason: issued ? 'credential' : 'challenge' },
    });
    throw new GatehouseError('invalid_passkey_registration');
  }
  const info = verified.registrationInfo;
  const name = answer.name?.trim() || 'Passkey';
  // The identity's other single-factor sessions now wait for a passkey (new-second-factor.ts).
  const { added: stored, sessionsAwaitingStep } = await addSecondFactor(deps.sql, session, async (tx) => {
    const { method, attached } = await attachSignInMethodIn(
      tx,
      deps.audit,
      { actor: identityId, clientIp: context.clientIp, requestId: context.requestId },
      { identityId, kind: 'passkey', provider: PASSKEY_PROVIDER, externalSubject: info.credential.id, label: name },
    );
    // Already this identity's (excludeCredentials should have stopped the authenticator): nothing new to store.
    if (!attached) throw new GatehouseError('method_conflict', 'This passkey is already registered to your account.');
    await insertPasskeyCredential(
      tx,
      {
        methodId: method.id,
        identityId,
        credentialId: info.credential.id,
        publicKey: info.credential.publicKey,
        signCount: info.credential.counter,
        transports: info.credential.transports ?? [],
        backupEligible: info.credentialDeviceType === 'multiDevice',
        backupState: info.credentialBackedUp,
        aaguid: info.aaguid,
      },
      now,
    );
    return { methodId: method.id, event: { ...attached, details: { ...attached.details, name, aaguid: info.aaguid } } };
  });
  await deps.audit.record({
    ...stored.event,
    details: { ...stored.event.details, sessions_awaiting_step: sessionsAwaitingStep },
  });
  return { methodId: stored.methodId, name };
}
