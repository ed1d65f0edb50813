// The bootstrap organization and its initial owner. Setup and the development start call ensureBootstrap; when the
// database already holds an installation it is authoritative (SPEC.md "Incomplete setup rerun"): the existing
// organization and owner are kept and nothing about the owner (credentials included) is recreated.
import type { Sql } from '../db/pool.ts';
import { newSub, normalizeEmail, type Sub } from './ids.ts';

export interface BootstrapRequest {
  organizationId: string;
  organizationName: string;
  ownerSubject: string;
}

export interface Installation {
  organizationId: string;
  organizationName: string;
  ownerId: Sub;
  ownerSubject: string;
  setupCompleted: boolean;
  /** True when this call created the organization and owner; false when it found them. */
  created: boolean;
}

interface InstallationRow {
  organization_id: string;
  organization_name: string;
  owner_identity_id: string;
  owner_subject: string;
  setup_completed_at: Date | null;
}

export async function readInstallation(sql: Sql): Promise<Omit<Installation, 'created'> | null> {
  const [row] = await sql<InstallationRow[]>`
    select i.organization_id, o.name as organization_name, i.owner_identity_id, i.owner_subject, i.setup_completed_at
    from installation i join organizations o on o.id = i.organization_id`;
  if (!row) return null;
  return {
    organizationId: row.organization_id,
    organizationName: row.organization_name,
    ownerId: row.owner_identity_id as Sub,
    ownerSubject: row.owner_subject,
    setupCompleted: row.setup_completed_at !== null,
  };
}

export async function ensureBootstrap(sql: Sql, request: BootstrapRequest): Promise<Installation> {
  return await sql.begin(async (tx) => {
    // Serialize concurrent setups; the loser finds the winner's installation.
    await tx`lock table installation in exclusive mode`;
    const existing = await readInstallation(tx as unknown as Sql);
    if (existing) return { ...existing, created: false };
    const ownerId = newSub();
    await tx`insert into organizations (id, name) values (${request.organizationId}, ${request.organizationName})
             on conflict (id) do nothing`;
    await tx`insert into identities (id, state, display_name, assurance)
             values (${ownerId}, 'active', ${request.ownerSubject}, 'ial2')`;
    await tx`insert into emails (identity_id, address, normalized, is_primary)
             values (${ownerId}, ${request.ownerSubject}, ${normalizeEmail(request.ownerSubject)}, true)`;
    await tx`insert into memberships (organization_id, identity_id, roles)
             values (${request.organizationId}, ${ownerId}, ${['owner']})`;
    await tx`insert into installation (organization_id, owner_identity_id, owner_subject)
             values (${request.organizationId}, ${ownerId}, ${request.ownerSubject})`;
    return { ...request, ownerId, setupCompleted: false, created: true };
  });
}

export async function markSetupCompleted(sql: Sql): Promise<void> {
  await sql`update installation set setup_completed_at = coalesce(setup_completed_at, now())`;
}
