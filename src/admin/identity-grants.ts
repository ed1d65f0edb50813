// An identity's granted access as an owner sees it (GET /admin/identities/:sub/grants) and the end of one client's
// access (POST /admin/identities/:sub/grants/:client_id/revoke): the same entries and the same ending as the
// person's own account page (src/oauth/granted-access.ts), audited in the change's transaction.
import { NotFound } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentity } from '../identity/store.ts';
import { listGrantedAccess, revokeGrantedAccess } from '../oauth/granted-access.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';

export async function listIdentityGrants(deps: AdminDeps, sub: Sub) {
  if (!(await findIdentity(deps.sql, sub))) throw new NotFound('No such identity');
  return { grants: await listGrantedAccess(deps, sub) };
}

export async function revokeIdentityGrant(deps: AdminDeps, actor: Actor, sub: Sub, clientId: string) {
  const outcome = await changeAudited(
    deps,
    actor,
    async (tx) => {
      if (!(await findIdentity(tx, sub))) return { found: false as const };
      return { found: true as const, ended: await revokeGrantedAccess(tx, sub, clientId, deps.clock()) };
    },
    (o) =>
      o.found && o.ended
        ? {
            event: 'oauth.access_revoked',
            subject: sub,
            details: {
              client_id: clientId,
              grants_revoked: o.ended.grantsRevoked,
              consent_removed: o.ended.consentRemoved,
              codes_discarded: o.ended.codesDiscarded,
            },
          }
        : null,
  );
  if (!outcome.found) throw new NotFound('No such identity');
  if (!outcome.ended) throw new NotFound('No application with this id holds a grant of this identity');
  return {
    client_id: clientId,
    grants_revoked: outcome.ended.grantsRevoked,
    consent_removed: outcome.ended.consentRemoved,
  };
}
