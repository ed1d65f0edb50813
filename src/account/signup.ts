// POST /account/signup. Enumeration-safe (DESIGN.md): a new address and a registered one get the same answer and
// the same work (the password is hashed either way). An address is registered when someone signs in with it by
// password or any identity has verified it; its holder gets a "someone tried to sign up" notice at the address on
// record instead of a second account, and nothing is ever linked or merged by email. A sign-up that was never
// verified does not hold its address hostage: signing up again replaces it. Replacing is safe because the link only
// proves the mailbox: the account keeps a password only if the link holder shows or chooses it (signup-password.ts).
import type { AuditEvent } from '../audit/audit.ts';
import type { Executor } from '../db/pool.ts';
import { assertDisplayText } from '../http/display-text.ts';
import { GatehouseError } from '../http/errors.ts';
import type { Locale } from '../i18n/locales.ts';
import { recipientLocale } from '../i18n/request-locale.ts';
import { newSub, normalizeEmail, type Sub } from '../identity/ids.ts';
import { attachSignInMethodIn } from '../identity/sign-in-methods.ts';
import {
  deletePendingIdentity,
  findEmailHolder,
  findIdentity,
  findPrimaryEmail,
  findSignInMethodOwner,
  findVerifiedEmailHolder,
  insertIdentity,
  listSignInMethods,
} from '../identity/store.ts';
import {
  hasLiveEnrollmentToken,
  PASSWORD_PROVIDER,
  upsertPasswordCredential,
} from '../login/local/credential-store.ts';
import { sendVerification } from '../verification/send-verification.ts';
import { acceptTypedAddress } from './address.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { admitMailRequest } from './mail-throttle.ts';
import { hashAllowedPassword } from './password.ts';

export interface SignupInput {
  email: string;
  password: string;
  displayName: string;
  /** The language of the sign-up request: the verification is written in it (the account has no choice yet). */
  locale: Locale;
}

type Outcome = { created: Sub; attached: AuditEvent | null } | { existing: Sub | null; notify: string | null };

// Two sign-ups for one address raced: the loser meets the winner's row (a unique violation, or the attach rule's
// method_conflict) and is answered like any registered address.
const lostRace = (error: unknown) =>
  (error as { code?: string }).code === '23505' ||
  (error instanceof GatehouseError && error.code === 'method_conflict');

/**
 * An invited person whose link still works (admin/invitations.ts: an active identity with the address on record, no
 * sign-in method yet, a live enrollment link). A sign-up would take the password sign-in subject that link is to
 * set, so the invitation could never be used; the address counts as registered, and its holder gets the notice
 * instead. Once the link has expired the address blocks nothing again.
 */
async function findInvitedHolder(tx: Executor, normalized: string, now: Date): Promise<Sub | null> {
  const holder = await findEmailHolder(tx, normalized);
  if (holder?.state !== 'active' || (await listSignInMethods(tx, holder.identityId)).length > 0) return null;
  return (await hasLiveEnrollmentToken(tx, holder.identityId, now)) ? holder.identityId : null;
}

export async function signUp(deps: AccountDeps, facts: RequestFacts, input: SignupInput): Promise<{ identityId: Sub }> {
  const address = acceptTypedAddress(deps.config, input.email, 'body.email');
  assertDisplayText(input.displayName, 'body.display_name');
  await admitMailRequest(deps, facts, address);
  const subject = normalizeEmail(address);
  const phc = await hashAllowedPassword(deps, input.password, { email: subject, displayName: input.displayName });
  const now = deps.clock();
  const context = { actor: null, clientIp: facts.clientIp, requestId: facts.requestId };
  const outcome: Outcome = await deps.sql
    .begin(async (tx): Promise<Outcome> => {
      const holder = await findSignInMethodOwner(tx, 'password', PASSWORD_PROVIDER, subject);
      const pending = holder !== null && (await findIdentity(tx, holder))?.state === 'pending_verification';
      if (holder && !pending) return { existing: holder, notify: null };
      const verified = await findVerifiedEmailHolder(tx, subject);
      if (verified) return { existing: verified.identityId, notify: verified.address };
      const invited = await findInvitedHolder(tx, subject, now);
      if (invited) return { existing: invited, notify: null };
      if (holder) await deletePendingIdentity(tx, holder);
      const identityId = await insertIdentity(tx, {
        displayName: input.displayName,
        assurance: 'ial1',
        state: 'pending_verification',
        email: { address, verified: false },
      });
      // Through the identity module's attach rule, like every other method kind.
      const { method, attached } = await attachSignInMethodIn(tx, deps.audit, context, {
        identityId,
        kind: 'password',
        provider: PASSWORD_PROVIDER,
        externalSubject: subject,
        label: 'Password',
      });
      await upsertPasswordCredential(tx, method.id, identityId, phc);
      await sendVerification(tx, deps.outbox, { purpose: 'signup', identityId, email: address }, now, input.locale);
      return { created: identityId, attached: attached ? { ...attached, actor: identityId } : null };
    })
    .catch(async (error: unknown): Promise<Outcome> => {
      if (!lostRace(error)) throw error;
      return { existing: await findSignInMethodOwner(deps.sql, 'password', PASSWORD_PROVIDER, subject), notify: null };
    });

  if ('created' in outcome) {
    if (outcome.attached) await deps.audit.record(outcome.attached);
    await deps.audit.record({ event: 'signup.created', actor: outcome.created, subject: outcome.created, ...facts });
    return { identityId: outcome.created };
  }
  // The notice goes to the address on record, not to whatever spelling the newcomer typed.
  const onRecord =
    outcome.notify ??
    (outcome.existing ? ((await findPrimaryEmail(deps.sql, outcome.existing))?.address ?? null) : null);
  if (onRecord) {
    const locale = await recipientLocale(deps.sql, outcome.existing, input.locale);
    await deps.outbox.enqueue(deps.sql, { template: 'signup_attempt_notice', to: onRecord, locale });
  }
  await deps.audit.record({ event: 'signup.existing_address', actor: null, subject: outcome.existing, ...facts });
  // An id that names no identity: the caller cannot tell this answer from a real one.
  return { identityId: newSub() };
}
