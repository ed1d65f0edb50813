// Enrollment: the owner's link sets a password (policy-checked) and yields an enrollment-only session; that session
// (or any session without a confirmed authenticator) enrolls TOTP, receives ten recovery codes once and is rotated
// to aal2. Using a link resets the owner's local credentials: it is the operator's way back in, so the old TOTP and
// recovery codes end and every session of the owner is revoked.
import { argon2Parameters, hashPassword } from '../../crypto/password-hash.ts';
import { tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError } from '../../http/errors.ts';
import { normalizeEmail, type Sub } from '../../identity/ids.ts';
import { attachSignInMethod } from '../../identity/sign-in-methods.ts';
import { findIdentity, findPrimaryEmail, markEmailVerified } from '../../identity/store.ts';
import type { SessionStart } from '../../session/http.ts';
import { revokeIdentitySessions } from '../../session/store.ts';
import type { Session } from '../../session/types.ts';
import { addSecondFactor, assertMayAddSecondFactor } from '../step-up/new-second-factor.ts';
import {
  confirmTotp,
  consumeEnrollmentToken,
  deleteTotpAndRecoveryCodes,
  findEnrollmentToken,
  findTotpCredential,
  PASSWORD_PROVIDER,
  replaceRecoveryCodes,
  upsertPasswordCredential,
  upsertPendingTotp,
} from './credential-store.ts';
import type { AttemptContext, LocalLoginDeps } from './deps.ts';
import { assertPasswordAllowed } from './password-policy.ts';
import { generateRecoveryCodes, recoveryCodeHash } from './recovery-codes.ts';
import { matchTotpStep, newTotpSeed, openTotpSeed, otpauthUri } from './totp.ts';

async function signInSubject(deps: LocalLoginDeps, identityId: Sub): Promise<string> {
  const email = await findPrimaryEmail(deps.sql, identityId);
  if (!email) throw new GatehouseError('invalid_enrollment_token', 'The account has no email address to sign in with');
  return normalizeEmail(email.address);
}

/**
 * Whose account a link sets up, so the page can say so before the password is chosen (and a password manager can file
 * it under the right name). The link is not spent: only its holder can ask, and the holder may set the password anyway.
 */
export async function enrollmentAccount(
  deps: LocalLoginDeps,
  token: string,
): Promise<{ email: string; displayName: string }> {
  const pending = await findEnrollmentToken(deps.sql, tokenHash(token), deps.clock());
  const [identity, email] = pending
    ? await Promise.all([findIdentity(deps.sql, pending), findPrimaryEmail(deps.sql, pending)])
    : [null, null];
  if (!identity || !email) throw new GatehouseError('invalid_enrollment_token');
  return { email: email.address, displayName: identity.displayName };
}

export async function enrollWithToken(
  deps: LocalLoginDeps,
  context: AttemptContext,
  input: { token: string; password: string },
): Promise<SessionStart> {
  const now = deps.clock();
  const hash = tokenHash(input.token);
  const pending = await findEnrollmentToken(deps.sql, hash, now);
  if (!pending) throw new GatehouseError('invalid_enrollment_token');
  const subject = await signInSubject(deps, pending);
  // Checked before the link is used, so a refused password leaves the link working.
  const displayName = (await findIdentity(deps.sql, pending))?.displayName;
  await assertPasswordAllowed(input.password, deps, { email: subject, displayName });
  const phc = await hashPassword(input.password, deps.secrets.passwordPepper, argon2Parameters(deps.passwords));
  // One transaction: the link is spent only together with the password, the reset and the revocation, so a
  // failure anywhere (e.g. the password method belongs to another identity: 409) leaves the link usable.
  const { identityId, revoked } = await deps.sql.begin(async (tx) => {
    const link = await consumeEnrollmentToken(tx, hash, now);
    if (!link) throw new GatehouseError('invalid_enrollment_token');
    const identityId = link.identityId;
    // A link mailed to the address the person signs in with proves that mailbox (an invitation, say): apps that
    // require email_verified then accept them. A link shown to an administrator or printed proves nothing.
    if (link.mailedTo === subject) await markEmailVerified(tx, identityId, subject, now);
    const audited = { actor: identityId, clientIp: context.clientIp, requestId: context.requestId };
    const method = await attachSignInMethod(tx, deps.audit, audited, {
      identityId,
      kind: 'password',
      provider: PASSWORD_PROVIDER,
      externalSubject: subject,
      label: 'Password',
    });
    await upsertPasswordCredential(tx, method.id, identityId, phc);
    await deleteTotpAndRecoveryCodes(tx, identityId);
    return { identityId, revoked: await revokeIdentitySessions(tx, identityId, now) };
  });
  await deps.audit.record({
    event: 'enrollment.password_set',
    actor: identityId,
    clientIp: context.clientIp,
    requestId: context.requestId,
    subject: identityId,
    details: { revoked },
  });
  return { identityId, aal: 'aal1', amr: ['pwd'], authTime: now, pending: 'enrollment' };
}

export async function startTotpEnrollment(
  deps: LocalLoginDeps,
  context: AttemptContext,
  session: Session,
): Promise<{ otpauthUri: string; secret: string; account: string }> {
  const existing = await findTotpCredential(deps.sql, session.identityId);
  if (existing?.confirmed) throw new GatehouseError('totp_already_enrolled');
  await assertMayAddSecondFactor(deps.sql, session);
  const seed = newTotpSeed(deps.secrets.totp, session.identityId);
  if (!(await upsertPendingTotp(deps.sql, session.identityId, seed.sealed)))
    throw new GatehouseError('totp_already_enrolled');
  const email = await findPrimaryEmail(deps.sql, session.identityId);
  const issuerName = new URL(deps.issuer).host;
  await deps.audit.record({
    event: 'totp.enrollment_started',
    ...context,
    actor: session.identityId,
    subject: session.identityId,
  });
  const account = email?.address ?? session.identityId;
  return { otpauthUri: otpauthUri(seed.base32, issuerName, account), secret: seed.base32, account };
}

export async function completeTotpEnrollment(
  deps: LocalLoginDeps,
  context: AttemptContext,
  session: Session,
  code: string,
): Promise<{ recoveryCodes: string[]; start: SessionStart }> {
  const now = deps.clock();
  const id = session.identityId;
  const pending = await findTotpCredential(deps.sql, id);
  if (!pending) throw new GatehouseError('totp_enrollment_not_started');
  if (pending.confirmed) throw new GatehouseError('totp_already_enrolled');
  const step = matchTotpStep(openTotpSeed(deps.secrets.totp, id, pending.sealedSeed), code, now);
  if (step === null) throw new GatehouseError('invalid_totp_code');
  const recoveryCodes = generateRecoveryCodes();
  const pepper = deps.secrets.recoveryPepper;
  // The identity's other single-factor sessions now wait for the authenticator (new-second-factor.ts).
  const { sessionsAwaitingStep } = await addSecondFactor(deps.sql, session, async (tx) => {
    if (!(await confirmTotp(tx, id, pending.sealedSeed, step, now)))
      throw new GatehouseError('totp_enrollment_not_started', 'The enrollment changed meanwhile; start again.');
    await replaceRecoveryCodes(
      tx,
      id,
      recoveryCodes.map((c) => recoveryCodeHash(pepper, id, c)),
    );
  });
  await deps.audit.record({
    event: 'totp.enrolled',
    ...context,
    actor: id,
    subject: id,
    details: { recovery_codes: recoveryCodes.length, sessions_awaiting_step: sessionsAwaitingStep },
  });
  const amr = [...new Set([...session.amr, 'otp'])];
  return { recoveryCodes, start: { identityId: id, aal: 'aal2', amr, authTime: now, pending: null } };
}
