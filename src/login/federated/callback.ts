// What a verified provider answer leads to, by the identity rules in src/identity/external-accounts.ts: a session
// for a known (or newly created) identity, a link to the signed-in identity, or a page explaining why not.

import { GatehouseError } from '../../http/errors.ts';
import type { ExternalAccount } from '../../identity/external-accounts.ts';
import { linkExternalAccount, signInWithExternalAccount } from '../../identity/external-accounts.ts';
import type { Sub } from '../../identity/ids.ts';
import type { SessionStart } from '../../session/http.ts';
import type { FederatedDeps, RequestFacts } from './deps.ts';
import type { CallbackParameters, ExternalProfile, FederatedProvider } from './provider.ts';
import { finishRoundTrip } from './round-trip.ts';

export type CallbackOutcome =
  | { kind: 'signed_in'; start: SessionStart; returnTo: string }
  | { kind: 'linked'; returnTo: string }
  | { kind: 'email_in_use'; provider: FederatedProvider }
  | { kind: 'signup_closed'; provider: FederatedProvider };

export interface CallbackInput {
  callback: CallbackParameters;
  cookie: string | null;
  /** The identity of the browser's live session, if any: a link completes only for the identity that started it. */
  signedIn: Sub | null;
}

export async function completeCallback(
  deps: FederatedDeps,
  facts: RequestFacts,
  input: CallbackInput,
): Promise<CallbackOutcome> {
  const { provider, transaction, profile } = await finishRoundTrip(deps, input.callback, input.cookie);
  const account = accountOf(provider, profile);
  if (transaction.purpose === 'link') {
    // Signed out (or in as someone else) since the start: the link was asked for by another session.
    if (transaction.identityId === null || input.signedIn !== transaction.identityId)
      throw new GatehouseError('invalid_federated_transaction');
    const context = { actor: transaction.identityId, ...facts };
    await linkExternalAccount(deps.sql, deps.audit, context, transaction.identityId, account);
    return { kind: 'linked', returnTo: transaction.returnTo };
  }
  const now = deps.clock();
  const context = { actor: null, ...facts };
  const result = await signInWithExternalAccount(
    deps.sql,
    deps.audit,
    context,
    account,
    { signUp: deps.selfService },
    now,
  );
  if (result.outcome === 'email_in_use') return { kind: 'email_in_use', provider };
  if (result.outcome === 'signup_closed') return { kind: 'signup_closed', provider };
  const assurance = sessionAssurance(provider, profile);
  await deps.audit.record({
    event: 'signin.succeeded',
    ...facts,
    actor: result.identityId,
    subject: result.identityId,
    details: { method: 'federated', provider: provider.id, aal: assurance.aal, created: result.outcome === 'created' },
  });
  return {
    kind: 'signed_in',
    start: { identityId: result.identityId, ...assurance, authTime: now, pending: null },
    returnTo: transaction.returnTo,
  };
}

function accountOf(provider: FederatedProvider, profile: ExternalProfile): ExternalAccount {
  return {
    kind: 'federated',
    provider: provider.id,
    subject: profile.subject,
    label: profile.email ?? profile.name,
    displayName: profile.name,
    email: profile.email ? { address: profile.email, verified: profile.emailVerified } : null,
  };
}

/**
 * Upstream MFA is outside this service's control, so a federated sign-in is one factor (aal1) unless the operator
 * trusts this provider's amr/acr (trust_upstream_mfa) and it reports multi-factor. "fed" is not in the RFC 8176
 * registry; RFC 8176 §1 leaves other values to agreement, and docs/identity.md defines it.
 */
export function sessionAssurance(provider: FederatedProvider, profile: ExternalProfile) {
  const multiFactor =
    profile.amr.includes('mfa') || (profile.acr !== null && /(^|[/:_-])mfa($|[/:_-])/i.test(profile.acr));
  if (provider.trustUpstreamMfa && multiFactor) return { aal: 'aal2' as const, amr: ['fed', 'mfa'] };
  return { aal: 'aal1' as const, amr: ['fed'] };
}
