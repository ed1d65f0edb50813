// GET /account/connections and removal: the identity's sign-in methods; removing one goes through the rule in
// src/identity (never the last one).
import type { Sub } from '../identity/ids.ts';
import { removeSignInMethod } from '../identity/sign-in-methods.ts';
import { listSignInMethods } from '../identity/store.ts';
import type { Session } from '../session/types.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { confirmRecentOrPassword } from './reauth.ts';

/** The name people know a directory by: its configured `name`, not the id in the configuration's key. */
const directoryName = (deps: AccountDeps, id: string | null) => (id && deps.config.ldap[id]?.name) || null;

export async function listConnections(deps: AccountDeps, identityId: Sub) {
  const methods = await listSignInMethods(deps.sql, identityId);
  return methods.map((m) => ({
    id: m.id,
    kind: m.kind,
    provider: m.provider,
    provider_name: m.kind === 'ldap' ? directoryName(deps, m.provider) : null,
    label: m.label,
    // The password method's subject is the person's own email; external subjects stay server-side.
    subject: m.kind === 'password' ? m.externalSubject : null,
    created_at: m.createdAt.toISOString(),
    last_used_at: m.lastUsedAt?.toISOString() ?? null,
  }));
}

/**
 * Removing a sign-in method changes how the account is reached, so it asks for recent authentication like adding a
 * passkey does (issue 17): a sign-in within RECENT_SIGN_IN_SECONDS with any method, or the current password
 * (confirmRecentOrPassword). A session alone, such as a stolen cookie, cannot strip the person's other ways in.
 */
export async function removeConnection(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  methodId: string,
  password: string | undefined,
): Promise<void> {
  const identityId = session.identityId;
  await confirmRecentOrPassword(deps, facts, session, password);
  await removeSignInMethod(
    deps.sql,
    deps.audit,
    { actor: identityId, clientIp: facts.clientIp, requestId: facts.requestId },
    identityId,
    methodId,
  );
}
