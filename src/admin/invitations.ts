// Invitations (POST /admin/identities) and the administrator's reset link (POST /admin/identities/:sub/enrollment-link).
// An invitation: an owner adds a person by email address and organization roles, so an
// organization with self-service off still gains members. The identity is created active with its address unverified
// and no sign-in method; what it gets is the owner enrollment machinery's one-use link (src/login/local/
// enrollment-link.ts), with which the person sets a password and enrolls TOTP. When delivery works the link goes out
// by email through the outbox, in the same transaction as the identity; otherwise it is shown once in the answer.
// Enrolling through a mailed link proves the mailbox, so the address is then verified (login/local/enrollment.ts).

import { acceptsLocalAddresses, checkRecipient, InvalidRecipient } from '../delivery/recipient.ts';
import { assertDisplayText } from '../http/display-text.ts';
import { GatehouseError, InvalidRequest, NotFound } from '../http/errors.ts';
import { recipientLocale } from '../i18n/request-locale.ts';
import { normalizeEmail, type Sub } from '../identity/ids.ts';
import {
  deletePendingIdentity,
  findEmailHolder,
  findIdentity,
  findPrimaryEmail,
  insertIdentity,
  lockEmailAddress,
  upsertMembership,
} from '../identity/store.ts';
import { issueEnrollmentLink } from '../login/local/enrollment-link.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';

/** A week: long enough to reach someone on leave, short enough that a forgotten link goes stale. */
export const INVITATION_LINK_SECONDS = 7 * 24 * 3600;

export interface InvitationInput {
  email: string;
  display_name?: string;
  roles: string[];
}

function acceptAddress(address: string, issuer: string): string {
  try {
    // A loopback (development) instance also invites name@localhost, as sign-up takes it (delivery/recipient.ts).
    return checkRecipient(address, { localAddresses: acceptsLocalAddresses(issuer) });
  } catch (error) {
    if (!(error instanceof InvalidRecipient)) throw error;
    const problem = 'enter a plain address such as name@example.org';
    throw new InvalidRequest(`Email address: ${problem}`, { fields: [{ path: 'body.email', problem }], cause: error });
  }
}

type Outcome = { taken: true } | { taken: false; sub: Sub; link: { url: string; expiresAt: Date } };

export async function inviteIdentity(deps: AdminDeps, actor: Actor, input: InvitationInput) {
  const address = acceptAddress(input.email, deps.issuer);
  // The name shows on consent pages and in the console: visible text only, like every other name (display-text.ts).
  assertDisplayText(input.display_name, 'body.display_name', 'Display name');
  const normalized = normalizeEmail(address);
  const delivery = deps.invitations.delivery;
  const now = deps.clock();
  const outcome = await changeAudited<Outcome>(
    deps,
    actor,
    async (tx) => {
      // Two invitations for one address at once: the second waits and then finds the first one's identity.
      await lockEmailAddress(tx, normalized);
      const holder = await findEmailHolder(tx, normalized);
      if (holder && holder.state !== 'pending_verification') return { taken: true };
      // A sign-up nobody verified holds no address (account/signup.ts): the invitation replaces it.
      if (holder) await deletePendingIdentity(tx, holder.identityId);
      const sub = await insertIdentity(tx, {
        displayName: input.display_name?.trim() || address,
        assurance: 'ial1',
        state: 'active',
        email: { address, verified: false },
      });
      await upsertMembership(tx, deps.organizationId, sub, input.roles);
      const link = await issueEnrollmentLink(tx, sub, deps.issuer, now, {
        lifetimeSeconds: INVITATION_LINK_SECONDS,
        returnTo: '/settings',
        ...(delivery !== 'shown' ? { mailedTo: address } : {}),
      });
      if (delivery !== 'shown')
        await deps.invitations.outbox.enqueue(tx, {
          template: 'invitation',
          to: address,
          locale: deps.invitations.defaultLocale,
          variables: { url: link.url, expiresAt: link.expiresAt },
        });
      return { taken: false, sub, link };
    },
    (o) =>
      o.taken
        ? null
        : {
            event: 'identity.invited',
            subject: o.sub,
            details: { organization_id: deps.organizationId, roles: input.roles.join(' '), delivery },
          },
  );
  // The caller is an owner, who may search identities anyway: saying the address is in use reveals nothing new.
  if (outcome.taken) throw new GatehouseError('email_taken', 'An account with this email address already exists.');
  return {
    sub: outcome.sub,
    email: address,
    display_name: input.display_name?.trim() || address,
    organization_id: deps.organizationId,
    roles: input.roles,
    state: 'active',
    invited: true,
    enrollment: {
      delivery,
      expires_at: outcome.link.expiresAt.toISOString(),
      // Shown once, only when no message carries it: whoever reads it can set the person's password.
      ...(delivery === 'shown' ? { url: outcome.link.url } : {}),
    },
  };
}

/**
 * The administrator's reset (POST /admin/identities/:sub/enrollment-link): a fresh one-use link (24 hours) with which
 * the person sets a new password and TOTP; using it ends the old ones and every session (login/local/enrollment.ts).
 * Issuing it kills older links. Emailed to the primary address when delivery works, else shown once.
 */
export async function issueResetLink(deps: AdminDeps, actor: Actor, sub: Sub) {
  const delivery = deps.invitations.delivery;
  const now = deps.clock();
  const outcome = await changeAudited(
    deps,
    actor,
    async (tx) => {
      const identity = await findIdentity(tx, sub);
      if (!identity) return { refused: 'not_found' as const };
      if (identity.state !== 'active') return { refused: 'state' as const, state: identity.state };
      // The link signs in with the primary address (enrollment.ts): without one it could never be used.
      const email = await findPrimaryEmail(tx, sub);
      if (!email) return { refused: 'no_email' as const };
      const link = await issueEnrollmentLink(tx, sub, deps.issuer, now, {
        returnTo: '/settings',
        ...(delivery !== 'shown' ? { mailedTo: email.address } : {}),
      });
      if (delivery !== 'shown')
        await deps.invitations.outbox.enqueue(tx, {
          template: 'enrollment_link',
          to: email.address,
          locale: await recipientLocale(tx, sub, deps.invitations.defaultLocale),
          variables: { url: link.url, expiresAt: link.expiresAt },
        });
      return { refused: null, link };
    },
    (o) => (o.refused ? null : { event: 'identity.enrollment_link_issued', subject: sub, details: { delivery } }),
  );
  if (outcome.refused === 'not_found') throw new NotFound('No such identity');
  if (outcome.refused === 'state')
    throw new GatehouseError('invalid_identity_state', `The identity is ${outcome.state}; reactivate it first`);
  if (outcome.refused === 'no_email')
    throw new GatehouseError('invalid_identity_state', 'The identity has no email address to sign in with');
  return {
    sub,
    enrollment: {
      delivery,
      expires_at: outcome.link.expiresAt.toISOString(),
      ...(delivery === 'shown' ? { url: outcome.link.url } : {}),
    },
  };
}
