// Identities as an owner sees them: search, one identity in full (never a secret), suspension and reactivation
// (ending the identity's sessions and OAuth grants), and identity assurance. Every change is audited.
import { GatehouseError, NotFound } from '../http/errors.ts';
import {
  type AssuranceChange,
  changeAssurance,
  changeIdentityState,
  type StateChange,
} from '../identity/admin-store.ts';
import * as directory from '../identity/directory-store.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentity, type IdentityAssurance, listSignInMethods } from '../identity/store.ts';
import { revokeGrantsOfIdentity } from '../oauth/revocation.ts';
import { describeDevice } from '../session/device.ts';
import { listLiveSessions, revokeIdentitySessions } from '../session/store.ts';
import { type Actor, type AdminDeps, changeAudited } from './context.ts';
import { type PageQuery, pageOf, pageRequest } from './paging.ts';

const iso = (date: Date | null) => date?.toISOString() ?? null;

const presentSummary = (i: directory.IdentitySummary) => ({
  sub: i.id,
  state: i.state,
  ial: i.assurance,
  display_name: i.displayName,
  email: i.email,
  invited: i.invited,
  created_at: i.createdAt.toISOString(),
});

export async function searchIdentities(deps: AdminDeps, query: PageQuery & { q?: string }) {
  const { limit, after } = pageRequest(query);
  const rows = await directory.searchIdentities(deps.sql, query.q ?? '', limit + 1, after);
  const page = pageOf(rows, limit, (i) => ({ createdAt: i.createdAt, id: i.id }));
  return { identities: page.items.map(presentSummary), next_cursor: page.nextCursor };
}

export async function getIdentity(deps: AdminDeps, sub: Sub) {
  const identity = await findIdentity(deps.sql, sub);
  if (!identity) throw new NotFound('No such identity');
  const [emails, methods, memberships, sessions] = await Promise.all([
    directory.listEmails(deps.sql, sub),
    listSignInMethods(deps.sql, sub),
    directory.listMemberships(deps.sql, sub),
    listLiveSessions(deps.sql, sub, deps.clock()),
  ]);
  return {
    sub: identity.id,
    state: identity.state,
    ial: identity.assurance,
    display_name: identity.displayName,
    // As the listing says it (directory-store.ts invitedColumn): active with no way to sign in yet.
    invited: identity.state === 'active' && methods.length === 0,
    created_at: identity.createdAt.toISOString(),
    updated_at: identity.updatedAt.toISOString(),
    emails: emails.map((e) => ({
      address: e.address,
      primary: e.primary,
      verified: e.verifiedAt !== null,
      created_at: e.createdAt.toISOString(),
    })),
    // The external subject stays out: the label says enough, and for some providers it is personal data.
    sign_in_methods: methods.map((m) => ({
      id: m.id,
      kind: m.kind,
      provider: m.provider,
      label: m.label,
      created_at: m.createdAt.toISOString(),
      last_used_at: iso(m.lastUsedAt),
    })),
    memberships: memberships.map((m) => ({
      organization_id: m.organizationId,
      organization_name: m.organizationName,
      roles: m.roles,
      joined_at: m.createdAt.toISOString(),
    })),
    sessions: sessions.map((s) => ({
      id: s.id,
      aal: s.aal,
      amr: s.amr,
      created_at: s.createdAt.toISOString(),
      last_seen_at: s.lastSeenAt.toISOString(),
      client_ip: s.clientIp,
      user_agent: s.userAgent,
      device: describeDevice(s.userAgent),
    })),
  };
}

function refuse(
  change: Exclude<StateChange | AssuranceChange, { outcome: 'changed' | 'unchanged' }>,
  verb: string,
): never {
  if (change.outcome === 'not_found') throw new NotFound('No such identity');
  if (change.outcome === 'last_owner') throw new GatehouseError('last_owner');
  throw new GatehouseError('invalid_identity_state', `The identity is ${change.state}; it cannot be ${verb}`);
}

export async function suspendIdentity(deps: AdminDeps, actor: Actor, sub: Sub) {
  if (sub === actor.sub) throw new GatehouseError('cannot_suspend_self');
  const now = deps.clock();
  const result = await changeAudited(
    deps,
    actor,
    async (tx) => {
      const change = await changeIdentityState(tx, {
        sub,
        from: 'active',
        to: 'suspended',
        ownerOrganizationId: deps.organizationId,
        now,
      });
      if (change.outcome !== 'changed') return { change, sessions: 0, grants: 0 };
      // In the same transaction: nothing the identity holds outlives the suspension by a single request.
      const sessions = await revokeIdentitySessions(tx, sub, now);
      return { change, sessions, grants: await revokeGrantsOfIdentity(tx, sub, now) };
    },
    (r) =>
      r.change.outcome === 'changed'
        ? {
            event: 'identity.suspended',
            subject: sub,
            details: { sessions_revoked: r.sessions, grants_revoked: r.grants },
          }
        : null,
  );
  if (result.change.outcome !== 'changed') refuse(result.change, 'suspended');
  return { sub, state: 'suspended', sessions_revoked: result.sessions, grants_revoked: result.grants };
}

/** "Sign out everywhere": every browser session of the identity ends, and with them the OAuth grants. */
export async function signOutEverywhere(deps: AdminDeps, actor: Actor, sub: Sub) {
  const now = deps.clock();
  const ended = await changeAudited(
    deps,
    actor,
    async (tx) => {
      if (!(await findIdentity(tx, sub))) return null;
      return {
        sessions: await revokeIdentitySessions(tx, sub, now),
        grants: await revokeGrantsOfIdentity(tx, sub, now),
      };
    },
    (e) =>
      e
        ? { event: 'session.revoked_all', subject: sub, details: { revoked: e.sessions, grants_revoked: e.grants } }
        : null,
  );
  if (!ended) throw new NotFound('No such identity');
  return { revoked: ended.sessions, grants_revoked: ended.grants };
}

export async function reactivateIdentity(deps: AdminDeps, actor: Actor, sub: Sub) {
  const change = await changeAudited(
    deps,
    actor,
    (tx) =>
      changeIdentityState(tx, {
        sub,
        from: 'suspended',
        to: 'active',
        ownerOrganizationId: deps.organizationId,
        now: deps.clock(),
      }),
    (c) => (c.outcome === 'changed' ? { event: 'identity.reactivated', subject: sub } : null),
  );
  if (change.outcome !== 'changed') refuse(change, 'reactivated');
  return { sub, state: 'active' };
}

export async function setAssurance(deps: AdminDeps, actor: Actor, sub: Sub, ial: IdentityAssurance) {
  const change = await changeAudited(
    deps,
    actor,
    (tx) => changeAssurance(tx, { sub, assurance: ial, ownerOrganizationId: deps.organizationId, now: deps.clock() }),
    (c) =>
      c.outcome === 'changed'
        ? { event: 'identity.assurance_changed', subject: sub, details: { from: c.previous, to: ial } }
        : null,
  );
  if (change.outcome !== 'changed' && change.outcome !== 'unchanged') return refuse(change, 'changed');
  return { sub, ial };
}
