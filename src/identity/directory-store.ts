// Reads of identities for the administration console: search, one identity's emails and memberships, and an
// organization's members. SQL for the identity tables lives in this module only (store.ts writes, this reads).
import type { Executor } from '../db/pool.ts';
import { normalizeEmail, type Sub } from './ids.ts';
import type { IdentityAssurance, IdentityState } from './store.ts';

export interface IdentitySummary {
  id: Sub;
  state: IdentityState;
  assurance: IdentityAssurance;
  displayName: string;
  email: string | null;
  createdAt: Date;
}

/**
 * Keyset position of the last row a page showed, ties broken by id. Stored times have microseconds but a position
 * carries a JavaScript Date, so the queries order and compare at millisecond precision.
 */
export interface Position {
  createdAt: Date;
  id: string;
}

interface SummaryRow {
  id: string;
  state: IdentityState;
  assurance: IdentityAssurance;
  display_name: string;
  address: string | null;
  created_at: Date;
}

const toSummary = (r: SummaryRow): IdentitySummary => ({
  id: r.id as Sub,
  state: r.state,
  assurance: r.assurance,
  displayName: r.display_name,
  email: r.address,
  createdAt: r.created_at,
});

/** `like` pattern text with its wildcards taken literally. */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The console's order, as migration 0024's identities_listing index holds it. */
const listingOrder = (sql: Executor) => sql`date_trunc('milliseconds', i.created_at at time zone 'UTC')`;

/**
 * Identities whose sub equals `query`, one of whose addresses starts with it (normalized), or whose display name
 * contains it (case-insensitive); every identity when `query` is empty. Newest first, at most `limit`, after `after`.
 * Each kind of match is its own indexed lookup (primary key, emails_normalized_prefix, the display name trigrams)
 * and the listing walks identities_listing, so neither scans all identities (migration 0024).
 */
export async function searchIdentities(
  sql: Executor,
  query: string,
  limit: number,
  after: Position | null,
): Promise<IdentitySummary[]> {
  const q = query.trim();
  const emailPrefix = `${literal(normalizeEmail(q))}%`;
  const namePart = `%${literal(q)}%`;
  const order = listingOrder(sql);
  const matching =
    q === ''
      ? sql`true`
      : sql`i.id in (
          select ${q}::text
          union select identity_id from emails where normalized like ${emailPrefix}
          union select id from identities where display_name ilike ${namePart})`;
  const position =
    after === null
      ? sql`true`
      : sql`(${order}, i.id) < (${after.createdAt}::timestamptz at time zone 'UTC', ${after.id}::text)`;
  return (
    await sql<SummaryRow[]>`
      select i.id, i.state, i.assurance, i.display_name, i.created_at, e.address
      from identities i left join emails e on e.identity_id = i.id and e.is_primary
      where ${matching} and ${position}
      order by ${order} desc, i.id desc
      limit ${limit}`
  ).map(toSummary);
}

export interface EmailRecord {
  address: string;
  primary: boolean;
  verifiedAt: Date | null;
  createdAt: Date;
}

export async function listEmails(sql: Executor, sub: Sub): Promise<EmailRecord[]> {
  const rows = await sql<{ address: string; is_primary: boolean; verified_at: Date | null; created_at: Date }[]>`
    select address, is_primary, verified_at, created_at from emails where identity_id = ${sub}
    order by is_primary desc, id`;
  return rows.map((r) => ({
    address: r.address,
    primary: r.is_primary,
    verifiedAt: r.verified_at,
    createdAt: r.created_at,
  }));
}

export interface Membership {
  organizationId: string;
  organizationName: string;
  roles: string[];
  createdAt: Date;
}

export async function listMemberships(sql: Executor, sub: Sub): Promise<Membership[]> {
  const rows = await sql<{ organization_id: string; name: string; roles: string[]; created_at: Date }[]>`
    select m.organization_id, o.name, m.roles, m.created_at
    from memberships m join organizations o on o.id = m.organization_id
    where m.identity_id = ${sub} order by m.organization_id`;
  return rows.map((r) => ({
    organizationId: r.organization_id,
    organizationName: r.name,
    roles: r.roles,
    createdAt: r.created_at,
  }));
}

export interface Organization {
  id: string;
  name: string;
}

/** Every organization; there are few (the operator creates them), so this is not paged. */
export async function listOrganizations(sql: Executor): Promise<Organization[]> {
  return [...(await sql<Organization[]>`select id, name from organizations order by id`)];
}

export async function findOrganization(sql: Executor, id: string): Promise<Organization | null> {
  const [row] = await sql<Organization[]>`select id, name from organizations where id = ${id}`;
  return row ?? null;
}

export interface Member extends IdentitySummary {
  roles: string[];
  joinedAt: Date;
}

/** Members of an organization in the order they joined, at most `limit`, after `after` (joined_at, sub). */
export async function listMembers(
  sql: Executor,
  organizationId: string,
  limit: number,
  after: Position | null,
): Promise<Member[]> {
  const rows = await sql<(SummaryRow & { roles: string[]; joined_at: Date })[]>`
    select i.id, i.state, i.assurance, i.display_name, i.created_at, e.address, m.roles, m.created_at as joined_at
    from memberships m join identities i on i.id = m.identity_id
      left join emails e on e.identity_id = i.id and e.is_primary
    where m.organization_id = ${organizationId}
      and (${after === null} or (date_trunc('milliseconds', m.created_at), i.id) > (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? null}::text))
    order by date_trunc('milliseconds', m.created_at), i.id
    limit ${limit}`;
  return rows.map((r) => ({ ...toSummary(r), roles: r.roles, joinedAt: r.joined_at }));
}
