// Changes an administrator makes to identities and memberships. Each one keeps the bootstrap organization with at
// least one active ial2 owner (who else could pass the admin guard?): the change takes a row lock on the
// organization first, so two owners suspending or demoting each other at once cannot both succeed. Call these
// inside a transaction (`sql.begin`), or the locks end before the change is made.

import { forgetIdentityOnCommit, forgetOnCommit } from '../db/forget-on-commit.ts';
import type { Executor } from '../db/pool.ts';
import { memberKey } from '../db/token-state-keys.ts';
import type { Sub } from './ids.ts';
import type { IdentityAssurance, IdentityState } from './store.ts';

/** Locks the organization row; false when there is no such organization. */
async function lockOrganization(tx: Executor, organizationId: string): Promise<boolean> {
  const rows = await tx`select 1 from organizations where id = ${organizationId} for update`;
  return rows.length > 0;
}

/** True when `sub` is an active ial2 owner of the organization and nobody else is. */
async function isLastOwner(tx: Executor, organizationId: string, sub: Sub): Promise<boolean> {
  const [row] = await tx<{ self: boolean; others: boolean }[]>`
    with owners as (
      select m.identity_id from memberships m join identities i on i.id = m.identity_id
      where m.organization_id = ${organizationId} and 'owner' = any(m.roles)
        and i.state = 'active' and i.assurance = 'ial2')
    select exists (select 1 from owners where identity_id = ${sub}) as self,
           exists (select 1 from owners where identity_id <> ${sub}) as others`;
  return Boolean(row?.self && !row.others);
}

async function lockIdentity(tx: Executor, sub: Sub) {
  const [row] = await tx<{ state: IdentityState; assurance: IdentityAssurance }[]>`
    select state, assurance from identities where id = ${sub} for update`;
  return row ?? null;
}

export interface Guarded {
  sub: Sub;
  /** The bootstrap organization, which must keep an active ial2 owner. */
  ownerOrganizationId: string;
  now: Date;
}

export type StateChange =
  | { outcome: 'changed' }
  | { outcome: 'not_found' }
  | { outcome: 'last_owner' }
  | { outcome: 'wrong_state'; state: IdentityState };

/** Moves an identity from state `from` to `to`; refused when it would take away the last owner. */
export async function changeIdentityState(
  tx: Executor,
  change: Guarded & { from: IdentityState; to: IdentityState },
): Promise<StateChange> {
  await lockOrganization(tx, change.ownerOrganizationId);
  const identity = await lockIdentity(tx, change.sub);
  if (!identity) return { outcome: 'not_found' };
  if (identity.state !== change.from) return { outcome: 'wrong_state', state: identity.state };
  if (change.to !== 'active' && (await isLastOwner(tx, change.ownerOrganizationId, change.sub)))
    return { outcome: 'last_owner' };
  await tx`update identities set state = ${change.to}, updated_at = ${change.now} where id = ${change.sub}`;
  forgetIdentityOnCommit(tx, change.sub);
  return { outcome: 'changed' };
}

export type AssuranceChange =
  | { outcome: 'changed'; previous: IdentityAssurance }
  | { outcome: 'unchanged'; previous: IdentityAssurance }
  | { outcome: 'not_found' }
  | { outcome: 'last_owner' }
  | { outcome: 'wrong_state'; state: IdentityState };

export async function changeAssurance(
  tx: Executor,
  change: Guarded & { assurance: IdentityAssurance },
): Promise<AssuranceChange> {
  await lockOrganization(tx, change.ownerOrganizationId);
  const identity = await lockIdentity(tx, change.sub);
  if (!identity) return { outcome: 'not_found' };
  if (identity.state === 'deleted') return { outcome: 'wrong_state', state: identity.state };
  if (identity.assurance === change.assurance) return { outcome: 'unchanged', previous: identity.assurance };
  if (change.assurance === 'ial1' && (await isLastOwner(tx, change.ownerOrganizationId, change.sub)))
    return { outcome: 'last_owner' };
  await tx`update identities set assurance = ${change.assurance}, updated_at = ${change.now} where id = ${change.sub}`;
  forgetIdentityOnCommit(tx, change.sub);
  return { outcome: 'changed', previous: identity.assurance };
}

export type MembershipChange =
  | { outcome: 'created'; previous: string[] }
  | { outcome: 'changed'; previous: string[] }
  | { outcome: 'unchanged'; previous: string[] }
  | { outcome: 'no_organization' }
  | { outcome: 'not_found' }
  | { outcome: 'last_owner' };

/** Sets (or creates) an identity's membership with exactly `roles`. */
export async function setMembershipRoles(
  tx: Executor,
  change: Guarded & { organizationId: string; roles: string[] },
): Promise<MembershipChange> {
  if (!(await lockOrganization(tx, change.organizationId))) return { outcome: 'no_organization' };
  if (change.organizationId !== change.ownerOrganizationId) await lockOrganization(tx, change.ownerOrganizationId);
  const identity = await lockIdentity(tx, change.sub);
  if (!identity || identity.state === 'deleted') return { outcome: 'not_found' };
  const [current] = await tx<{ roles: string[] }[]>`
    select roles from memberships where organization_id = ${change.organizationId} and identity_id = ${change.sub}`;
  const previous = current?.roles ?? [];
  const same = current && previous.length === change.roles.length && previous.every((r, i) => r === change.roles[i]);
  if (same) return { outcome: 'unchanged', previous };
  if (
    change.organizationId === change.ownerOrganizationId &&
    !change.roles.includes('owner') &&
    (await isLastOwner(tx, change.organizationId, change.sub))
  )
    return { outcome: 'last_owner' };
  await tx`
    insert into memberships (organization_id, identity_id, roles, created_at)
    values (${change.organizationId}, ${change.sub}, ${change.roles}, ${change.now})
    on conflict (organization_id, identity_id) do update set roles = excluded.roles`;
  forgetOnCommit(tx, [memberKey(change.sub)]);
  return { outcome: current ? 'changed' : 'created', previous };
}

export type MembershipRemoval =
  | { outcome: 'removed'; previous: string[] }
  | { outcome: 'no_organization' }
  | { outcome: 'not_member' }
  | { outcome: 'last_owner' };

export async function removeMembership(
  tx: Executor,
  change: Omit<Guarded, 'now'> & { organizationId: string },
): Promise<MembershipRemoval> {
  if (!(await lockOrganization(tx, change.organizationId))) return { outcome: 'no_organization' };
  if (
    change.organizationId === change.ownerOrganizationId &&
    (await isLastOwner(tx, change.organizationId, change.sub))
  )
    return { outcome: 'last_owner' };
  const [removed] = await tx<{ roles: string[] }[]>`
    delete from memberships where organization_id = ${change.organizationId} and identity_id = ${change.sub}
    returning roles`;
  forgetOnCommit(tx, [memberKey(change.sub)]);
  return removed ? { outcome: 'removed', previous: removed.roles } : { outcome: 'not_member' };
}
