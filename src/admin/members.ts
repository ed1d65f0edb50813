// Members of an organization and their roles (owner, admin, member, or operator-defined). The bootstrap
// organization always keeps an active ial2 owner (src/identity/admin-store.ts); every change is audited.
import { GatehouseError, NotFound } from '../http/errors.ts';
import { removeMembership, setMembershipRoles } from '../identity/admin-store.ts';
import {
  findOrganization,
  listMembers as listMemberRows,
  listOrganizations as listOrganizationRows,
} from '../identity/directory-store.ts';
import type { Sub } from '../identity/ids.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';
import { type PageQuery, pageOf, pageRequest } from './paging.ts';

const noOrganization = () => new NotFound('No such organization');

/** The organizations, the bootstrap one marked: the console opens its members by default. */
export async function listOrganizations(deps: AdminDeps) {
  const rows = await listOrganizationRows(deps.sql);
  return { organizations: rows.map((o) => ({ id: o.id, name: o.name, bootstrap: o.id === deps.organizationId })) };
}

export async function listMembers(deps: AdminDeps, organizationId: string, query: PageQuery) {
  const organization = await findOrganization(deps.sql, organizationId);
  if (!organization) throw noOrganization();
  const { limit, after } = pageRequest(query);
  const rows = await listMemberRows(deps.sql, organizationId, limit + 1, after);
  const page = pageOf(rows, limit, (m) => ({ createdAt: m.joinedAt, id: m.id }));
  return {
    organization: { id: organization.id, name: organization.name },
    members: page.items.map((m) => ({
      sub: m.id,
      display_name: m.displayName,
      email: m.email,
      state: m.state,
      ial: m.assurance,
      roles: m.roles,
      joined_at: m.joinedAt.toISOString(),
    })),
    next_cursor: page.nextCursor,
  };
}

export async function setRoles(deps: AdminDeps, actor: Actor, organizationId: string, sub: Sub, roles: string[]) {
  const change = await changeAudited(
    deps,
    actor,
    (tx) =>
      setMembershipRoles(tx, {
        organizationId,
        sub,
        roles,
        ownerOrganizationId: deps.organizationId,
        now: deps.clock(),
      }),
    (c) =>
      c.outcome === 'created' || c.outcome === 'changed'
        ? {
            event: c.outcome === 'created' ? 'membership.added' : 'membership.roles_changed',
            subject: sub,
            details: { organization_id: organizationId, roles: roles.join(' '), previous_roles: c.previous.join(' ') },
          }
        : null,
  );
  if (change.outcome === 'no_organization') throw noOrganization();
  if (change.outcome === 'not_found') throw new NotFound('No such identity');
  if (change.outcome === 'last_owner') throw new GatehouseError('last_owner');
  return { organization_id: organizationId, sub, roles };
}

export async function removeMember(deps: AdminDeps, actor: Actor, organizationId: string, sub: Sub) {
  const change = await changeAudited(
    deps,
    actor,
    (tx) => removeMembership(tx, { organizationId, sub, ownerOrganizationId: deps.organizationId }),
    (c) =>
      c.outcome === 'removed'
        ? {
            event: 'membership.removed',
            subject: sub,
            details: { organization_id: organizationId, roles: c.previous.join(' ') },
          }
        : null,
  );
  if (change.outcome === 'no_organization') throw noOrganization();
  if (change.outcome === 'not_member') throw new NotFound('No such member');
  if (change.outcome === 'last_owner') throw new GatehouseError('last_owner');
}
