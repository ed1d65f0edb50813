// POST /account/email/change and /account/email/change/verify. The new address must prove itself before it
// replaces the old one (and becomes the sign-in subject); the old address is then told, so a hijacked session
// cannot quietly move an account away. Changing needs the current password or a recent sign-in with any method, so
// people without a password can change their address too.
import { GatehouseError } from '../http/errors.ts';
import type { Locale } from '../i18n/locales.ts';
import { normalizeEmail, type Sub } from '../identity/ids.ts';
import { deletePendingIdentity, findProfile, findSignInMethodOwner, replacePrimaryEmail } from '../identity/store.ts';
import { PASSWORD_PROVIDER } from '../login/local/credential-store.ts';
import type { Session } from '../session/types.ts';
import { verificationError } from '../verification/errors.ts';
import { sendVerification } from '../verification/send-verification.ts';
import { findVerification } from '../verification/store.ts';
import { consumeVerification } from '../verification/verification.ts';
import { acceptTypedAddress } from './address.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { admitMailRequest } from './mail-throttle.ts';
import { confirmRecentOrPassword } from './reauth.ts';

export async function startEmailChange(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  input: { newEmail: string; password: string | undefined; locale: Locale },
): Promise<void> {
  const identityId = session.identityId;
  const address = acceptTypedAddress(deps.config, input.newEmail, 'body.new_email');
  await admitMailRequest(deps, facts, address);
  await confirmRecentOrPassword(deps, facts, session, input.password);
  const now = deps.clock();
  await deps.sql.begin(async (tx) => {
    await sendVerification(tx, deps.outbox, { purpose: 'email_change', identityId, email: address }, now, input.locale);
  });
  await deps.audit.record({ event: 'email_change.requested', actor: identityId, subject: identityId, ...facts });
}

const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

/**
 * Finishes the change for the signed-in identity only. The link proves the mailbox, not the account: opened by anyone
 * else (the address's owner, say, who never asked for it), it would put an address they control on an account
 * someone else controls, with that person's password and second factor (DESIGN.md "An unverified address gives
 * nobody control"). A link of another account is refused before it is tried, so it counts no attempt.
 */
export async function completeEmailChange(
  deps: AccountDeps,
  facts: RequestFacts,
  identityId: Sub,
  input: { verificationId: string; secret: string; locale: Locale },
): Promise<{ email: string }> {
  const named = await findVerification(deps.sql, input.verificationId);
  if (named?.purpose === 'email_change' && named.identity_id !== identityId)
    throw new GatehouseError(
      'verification_invalid',
      'This link changes the address of another account: sign in as that account to use it.',
    );
  const now = deps.clock();
  const outcome = await deps.sql
    .begin(async (tx) => {
      const result = await consumeVerification(
        tx,
        { verificationId: input.verificationId, secret: input.secret, purpose: 'email_change' },
        now,
      );
      if (!result.ok) return result;
      // A sign-up nobody verified holds no address (signup.ts), and the mailbox owner has just proved this one.
      const pending = await findSignInMethodOwner(tx, 'password', PASSWORD_PROVIDER, normalizeEmail(result.email));
      if (pending && pending !== result.identityId) await deletePendingIdentity(tx, pending);
      const previous = (await findProfile(tx, result.identityId))?.email ?? null;
      if (!(await replacePrimaryEmail(tx, result.identityId, result.email, now)))
        throw new GatehouseError('email_taken');
      if (previous && normalizeEmail(previous) !== normalizeEmail(result.email))
        await deps.outbox.enqueue(tx, { template: 'email_change_notice', to: previous, locale: input.locale });
      return result;
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw new GatehouseError('email_taken');
      throw error;
    });
  if (!outcome.ok) throw verificationError(outcome.reason);
  await deps.audit.record({
    event: 'email_change.completed',
    actor: outcome.identityId,
    subject: outcome.identityId,
    ...facts,
  });
  return { email: outcome.email };
}
