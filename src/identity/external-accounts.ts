// The identity rules for accounts held elsewhere (redirect providers, wallets, LDAP, SAML), enforced here once
// (SPEC.md "What the service does" 2, "States and transitions"; DESIGN.md: nothing is ever linked by email alone):
// - an external account is keyed by (kind, provider, external subject), never by email;
// - a known external account signs in as the identity it belongs to;
// - an unknown one creates an identity only when self-service sign-up is open, and never when its email address is
//   already verified at another identity: that person is told to sign in to the existing account and link it;
// - linking attaches to the signed-in identity through the one attach rule (owned elsewhere → 409 method_conflict).
// - a provider's email address is kept only when it is a plain one (plainEmail below), and its name for the person
//   only as visible text (providerDisplayName).
// Removal is the general removeSignInMethod (last-method rule). Every attach and refusal is audited.
import type { Audit } from '../audit/audit.ts';
import type { Sql } from '../db/pool.ts';
import { checkRecipient, InvalidRecipient } from '../delivery/recipient.ts';
import { visibleText } from '../http/display-text.ts';
import { GatehouseError } from '../http/errors.ts';
import { normalizeEmail, type Sub } from './ids.ts';
import { attachSignInMethod, attachSignInMethodIn, type RequestContext } from './sign-in-methods.ts';
import {
  findIdentity,
  findSignInMethodOwner,
  findVerifiedEmailHolder,
  insertIdentity,
  type MethodKind,
  touchSignInMethodOf,
} from './store.ts';

/** An account at another provider, as that provider vouched for it (its signature or its API, checked by the caller). */
export interface ExternalAccount {
  kind: Extract<MethodKind, 'federated' | 'web3' | 'ldap' | 'saml'>;
  provider: string;
  /** The provider's stable id for the account (OIDC `sub`, a numeric user id, an address); never an email. */
  subject: string;
  /** Shown in the account's list of methods, e.g. the provider account's email or handle. */
  label: string;
  displayName: string;
  /** Used only for a new identity's email record and the "already registered" check, never to find an identity. */
  email: { address: string; verified: boolean } | null;
}

/**
 * The provider's address, trimmed, when it is a plain one by the delivery rule (delivery/recipient.ts: bounded, no
 * spaces, quotes, control characters or non-ASCII local part); otherwise null, and the identity is made
 * without an email record, which its owner can add later. The text is the provider's (an OIDC claim, a SAML
 * attribute, an LDAP `mail`), not ours to trust: stored as it came, it would reach the console, the address search
 * (which takes text with a space for a name, never an address) and the outbox, whose rule would refuse it there.
 * Single-label domains pass (`name@intranet`), as company directories have them; on a public issuer the outbox
 * still refuses to send to one.
 */
export function plainEmail(email: ExternalAccount['email']): ExternalAccount['email'] {
  if (!email) return null;
  try {
    return { address: checkRecipient(email.address, { localAddresses: true }), verified: email.verified };
  } catch (error) {
    if (error instanceof InvalidRecipient) return null;
    throw error;
  }
}

/** As long as a display name a person may type (account/routes.ts). */
const MAX_DISPLAY_NAME = 200;

/**
 * The provider's name for the person as a display name: without the invisible and direction-changing characters
 * names shown to people never carry (http/display-text.ts; a right-to-left override in an upstream `name` claim would
 * otherwise reach the console and consent pages), trimmed, and cut to what a person could type.
 */
export const providerDisplayName = (name: string): string =>
  Array.from(visibleText(name).trim()).slice(0, MAX_DISPLAY_NAME).join('').trim();

export type ExternalSignIn =
  | { outcome: 'known'; identityId: Sub }
  | { outcome: 'created'; identityId: Sub }
  /** The provider vouches for an address another identity has verified: offer "sign in, then link", never link. */
  | { outcome: 'email_in_use' }
  | { outcome: 'signup_closed' };

export interface SignInPolicy {
  /** Whether an unknown external account may create an identity (self-service sign-up). */
  signUp: boolean;
}

/** Resolves an external account to an identity for sign-in, creating one when the rules allow. */
export async function signInWithExternalAccount(
  sql: Sql,
  audit: Audit,
  context: RequestContext,
  account: ExternalAccount,
  policy: SignInPolicy,
  now: Date,
): Promise<ExternalSignIn> {
  const owner = await findSignInMethodOwner(sql, account.kind, account.provider, account.subject);
  if (owner) {
    const identity = await findIdentity(sql, owner);
    // A suspended or deleted identity signs in by no method at all.
    if (identity?.state !== 'active') throw new GatehouseError('invalid_credentials', 'This account cannot sign in.');
    await touchSignInMethodOf(sql, owner, account.kind, account.provider, account.subject, now);
    return { outcome: 'known', identityId: owner };
  }
  const email = plainEmail(account.email);
  // Only an address the provider itself verified can collide: an unverified claim proves nothing about its owner.
  // Checked as the provider sent it, kept or not: an identity made before addresses were filtered may hold one that
  // is not plain, and the rule (never a second identity for a verified address) holds for it too.
  const address = account.email?.verified ? account.email.address.trim() : null;
  if (address && (await findVerifiedEmailHolder(sql, normalizeEmail(address)))) {
    await audit.record({ event: 'signup.external_email_in_use', ...context, details: { provider: account.provider } });
    return { outcome: 'email_in_use' };
  }
  if (!policy.signUp) {
    await audit.record({ event: 'signup.external_refused', ...context, details: { provider: account.provider } });
    return { outcome: 'signup_closed' };
  }
  const created = await sql
    .begin(async (tx) => {
      const identityId = await insertIdentity(tx, {
        displayName: providerDisplayName(account.displayName),
        assurance: 'ial1',
        state: 'active',
        ...(email ? { email } : {}),
      });
      const { attached } = await attachSignInMethodIn(
        tx,
        audit,
        { ...context, actor: identityId },
        methodOf(identityId, account),
      );
      return { identityId, attached };
    })
    .catch((error: unknown) => {
      // Two first sign-ins with one external account raced; the loser signs in as the winner's identity.
      if (error instanceof GatehouseError && error.code === 'method_conflict') return null;
      throw error;
    });
  if (!created) return signInWithExternalAccount(sql, audit, context, account, policy, now);
  if (created.attached) await audit.record(created.attached);
  await audit.record({
    event: 'signup.created',
    ...context,
    actor: created.identityId,
    subject: created.identityId,
    // Whether the provider's address was left out as not plain, so an operator can tell why an identity has none.
    details: {
      method: account.kind,
      provider: account.provider,
      ...(account.email && !email ? { provider_email: 'not_plain' } : {}),
    },
  });
  return { outcome: 'created', identityId: created.identityId };
}

/**
 * Links an external account to the signed-in identity. Linking one it already holds changes nothing; one held by
 * another identity is refused with 409 method_conflict (audited by the attach rule).
 */
export async function linkExternalAccount(
  sql: Sql,
  audit: Audit,
  context: RequestContext,
  identityId: Sub,
  account: ExternalAccount,
): Promise<void> {
  await attachSignInMethod(sql, audit, context, methodOf(identityId, account));
}

const methodOf = (identityId: Sub, account: ExternalAccount) => ({
  identityId,
  kind: account.kind,
  provider: account.provider,
  externalSubject: account.subject,
  label: account.label,
});
