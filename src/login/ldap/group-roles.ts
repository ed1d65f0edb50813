// Group → organization role mapping (`group_roles`), applied at every sign-in: the directory owns the roles it maps.
// Goes through the same membership rules as the console (admin-store), so the last owner is never demoted.
import type { Audit } from '../../audit/audit.ts';
import type { Sql } from '../../db/pool.ts';
import { removeMembership, setMembershipRoles } from '../../identity/admin-store.ts';
import type { Sub } from '../../identity/ids.ts';
import type { DirectoryConfig } from './directory.ts';

/** The sorted union of the roles mapped from the groups the user is in. */
export function mappedRoles(config: DirectoryConfig, groups: string[]): string[] {
  const member = new Set(groups.map((g) => g.toLowerCase()));
  const roles = config.group_roles.filter((m) => member.has(m.group_dn.toLowerCase())).flatMap((m) => m.roles);
  return [...new Set(roles)].sort();
}

export interface RoleSync {
  sql: Sql;
  audit: Audit;
  organizationId: string;
  context: { clientIp: string; requestId: string };
}

export async function applyGroupRoles(
  deps: RoleSync,
  directoryId: string,
  config: DirectoryConfig,
  sub: Sub,
  groups: string[],
  now: Date,
): Promise<void> {
  if (config.group_roles.length === 0) return;
  const roles = mappedRoles(config, groups);
  const guarded = { sub, ownerOrganizationId: deps.organizationId, organizationId: deps.organizationId };
  const result: { outcome: string } = await deps.sql.begin(
    async (tx): Promise<{ outcome: string }> =>
      roles.length > 0 ? await setMembershipRoles(tx, { ...guarded, roles, now }) : await removeMembership(tx, guarded),
  );
  const details = { directory: directoryId, organization_id: deps.organizationId, roles: roles.join(' ') };
  const base = { ...deps.context, actor: sub, subject: sub };
  if (result.outcome === 'created') await deps.audit.record({ event: 'membership.added', ...base, details });
  else if (result.outcome === 'changed')
    await deps.audit.record({ event: 'membership.roles_changed', ...base, details });
  else if (result.outcome === 'removed') await deps.audit.record({ event: 'membership.removed', ...base, details });
  else if (result.outcome === 'last_owner')
    await deps.audit.record({ event: 'membership.directory_kept_last_owner', ...base, details });
}
