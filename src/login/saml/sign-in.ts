// What a verified SAML assertion leads to, by the identity rules of src/identity/external-accounts.ts: the account
// is (saml, connection id, NameID), never the email, which the identity provider asserts but this service has not
// verified, so it is recorded unverified and never finds or links an identity.
import { GatehouseError } from '../../http/errors.ts';
import {
  type ExternalAccount,
  linkExternalAccount,
  signInWithExternalAccount,
} from '../../identity/external-accounts.ts';
import type { Sub } from '../../identity/ids.ts';
import type { SessionStart } from '../../session/http.ts';
import type { SamlConnection } from './connection.ts';
import type { SamlDeps } from './deps.ts';
import type { SamlAssertion } from './round-trip.ts';

export type SamlSignIn = { kind: 'signed_in'; start: SessionStart } | { kind: 'linked' } | { kind: 'signup_closed' };

const accountOf = (connection: SamlConnection, assertion: SamlAssertion): ExternalAccount => ({
  kind: 'saml',
  provider: connection.id,
  subject: assertion.nameId,
  label: assertion.email ?? assertion.nameId,
  displayName: assertion.displayName,
  email: assertion.email ? { address: assertion.email, verified: false } : null,
});

export async function signInWithAssertion(
  deps: SamlDeps,
  facts: { clientIp: string; requestId: string },
  connection: SamlConnection,
  assertion: SamlAssertion,
  /** The identity of the browser's live session, if any: a link completes only for the identity that started it. */
  signedIn: Sub | null,
): Promise<SamlSignIn> {
  const linkFor = assertion.request.identityId;
  if (linkFor) {
    // Signed out (or in as someone else) since the start: the link was asked for by another session.
    if (signedIn !== linkFor) throw new GatehouseError('saml_request_unknown');
    // Held by another identity: 409 method_conflict, audited by the attach rule.
    await linkExternalAccount(
      deps.sql,
      deps.audit,
      { actor: linkFor, ...facts },
      linkFor,
      accountOf(connection, assertion),
    );
    return { kind: 'linked' };
  }
  const now = deps.clock();
  const result = await signInWithExternalAccount(
    deps.sql,
    deps.audit,
    { actor: null, ...facts },
    accountOf(connection, assertion),
    { signUp: connection.config.sign_up },
    now,
  );
  if (result.outcome === 'signup_closed' || result.outcome === 'email_in_use') return { kind: 'signup_closed' };
  const assurance = samlAssurance(connection, assertion);
  await deps.audit.record({
    event: 'signin.succeeded',
    ...facts,
    actor: result.identityId,
    subject: result.identityId,
    details: { method: 'saml', connection: connection.id, aal: assurance.aal, created: result.outcome === 'created' },
  });
  return {
    kind: 'signed_in',
    start: { identityId: result.identityId, ...assurance, authTime: now, pending: null },
  };
}

/**
 * The identity provider's MFA is outside this service's control: aal2 only when the operator listed the
 * AuthnContextClassRef values that mean MFA (mfa_authn_contexts) and the signed AuthnStatement names one.
 * "fed" as in federated sign-in (docs/identity.md); RFC 8176 §2 "mfa".
 */
export function samlAssurance(connection: SamlConnection, assertion: SamlAssertion) {
  const mfa = assertion.authnContexts.some((ref) => connection.config.mfa_authn_contexts.includes(ref));
  return mfa ? { aal: 'aal2' as const, amr: ['fed', 'mfa'] } : { aal: 'aal1' as const, amr: ['fed'] };
}
