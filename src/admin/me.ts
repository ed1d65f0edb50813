// GET /admin/me: who the console is signed in as, for its header (name, email, a link to the account page). The
// guard has already found the identity; this adds the primary address and the roles that made it an administrator.
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentity, findMembershipRoles, findPrimaryEmail } from '../identity/store.ts';
import type { AdminDeps } from './context.ts';

export async function whoAmI(deps: AdminDeps, sub: Sub) {
  const [identity, email, roles] = await Promise.all([
    findIdentity(deps.sql, sub),
    findPrimaryEmail(deps.sql, sub),
    findMembershipRoles(deps.sql, deps.organizationId, sub),
  ]);
  // The guard read the same row a moment ago; a row gone since then is the one case left.
  if (!identity) throw new GatehouseError('admin_required', 'The account is gone');
  return {
    sub: identity.id,
    display_name: identity.displayName,
    email: email?.address ?? null,
    organization_id: deps.organizationId,
    roles: roles ?? [],
  };
}
