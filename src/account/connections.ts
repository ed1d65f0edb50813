// GET /account/connections and removal: the identity's sign-in methods; removing one goes through the rule in
// src/identity (never the last one).
import type { Sub } from '../identity/ids.ts';
import { removeSignInMethod } from '../identity/sign-in-methods.ts';
import { listSignInMethods } from '../identity/store.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

export async function listConnections(deps: AccountDeps, identityId: Sub) {
  const methods = await listSignInMethods(deps.sql, identityId);
  return methods.map((m) => ({
    id: m.id,
    kind: m.kind,
    provider: m.provider,
    label: m.label,
    // The password method's subject is the person's own email; external subjects stay server-side.
    subject: m.kind === 'password' ? m.externalSubject : null,
    created_at: m.createdAt.toISOString(),
    last_used_at: m.lastUsedAt?.toISOString() ?? null,
  }));
}

export async function removeConnection(
  deps: AccountDeps,
  facts: RequestFacts,
  identityId: Sub,
  methodId: string,
): Promise<void> {
  await removeSignInMethod(
    deps.sql,
    deps.audit,
    { actor: identityId, clientIp: facts.clientIp, requestId: facts.requestId },
    identityId,
    methodId,
  );
}
