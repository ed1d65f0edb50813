// The first factor of a sign-in whose subject an LDAP directory serves (DESIGN.md decision "LDAP sign-in"): the
// directory checks the password (search with the service account, then bind as the entry found), the identity is
// the one linked to (directory, stable id) by the external-account rules, and the TOTP step is Gatehouse's own,
// exactly as after a local password.
import type { Audit } from '../../audit/audit.ts';
import { GatehouseError } from '../../http/errors.ts';
import { signInWithExternalAccount } from '../../identity/external-accounts.ts';
import { authenticate, DirectoryUnavailable } from '../ldap/directory.ts';
import { applyGroupRoles } from '../ldap/group-roles.ts';
import { findTotpCredential } from './credential-store.ts';
import type { AttemptContext, LocalLoginDeps } from './deps.ts';
import { checkSecondFactor, type FactorOutcome, type Factors } from './factors.ts';

/** Null for every "not this person" answer (wrong password, no entry, empty password), like local sign-in. */
export async function checkDirectoryFactors(
  deps: LocalLoginDeps,
  audit: Audit,
  context: AttemptContext,
  directoryId: string,
  subject: string,
  factors: Factors,
  now: Date,
): Promise<FactorOutcome | null> {
  const directory = deps.directories.find((d) => d.id === directoryId);
  if (!directory) throw new GatehouseError('directory_unavailable');
  const user = await authenticate(directory, subject, factors.password).catch((error: unknown) => {
    if (!(error instanceof DirectoryUnavailable)) throw error;
    deps.logDirectoryFailure(directoryId, error);
    throw new GatehouseError('directory_unavailable');
  });
  if (!user) return null;
  const signedIn = await signInWithExternalAccount(
    deps.sql,
    audit,
    { actor: null, ...context },
    {
      kind: 'ldap',
      provider: directoryId,
      subject: user.stableId,
      label: user.email ?? user.dn,
      displayName: user.displayName,
      // The directory's mail attribute is the administrator's record, not a proof of mailbox control.
      email: user.email ? { address: user.email, verified: false } : null,
    },
    { signUp: directory.config.sign_up },
    now,
  );
  if (signedIn.outcome === 'signup_closed') throw new GatehouseError('directory_signup_closed');
  if (signedIn.outcome === 'email_in_use') throw new GatehouseError('federated_email_in_use');
  const { identityId } = signedIn;
  const second = await checkSecondFactor(
    deps,
    identityId,
    await findTotpCredential(deps.sql, identityId),
    factors,
    now,
  );
  if (!second) return null;
  await applyGroupRoles(
    { sql: deps.sql, audit, organizationId: deps.organization.id, context },
    directoryId,
    directory.config,
    identityId,
    user.groups,
    now,
  );
  return second;
}
