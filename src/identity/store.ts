// The only SQL for identities, emails, organizations, memberships and sign-in methods. A change to what userinfo or
// the gateway reads of a person (migrations 0009's and 0030's triggers notify it) is forgotten by this node's token
// state cache when it commits (src/db/forget-on-commit.ts).

import { forgetIdentityOnCommit } from '../db/forget-on-commit.ts';
import type { Executor, Sql } from '../db/pool.ts';
import { newSub, normalizeEmail, type Sub } from './ids.ts';

export type IdentityState = 'pending_verification' | 'active' | 'suspended' | 'deleted';
export type IdentityAssurance = 'ial1' | 'ial2';

export interface Identity {
  id: Sub;
  state: IdentityState;
  displayName: string;
  assurance: IdentityAssurance;
  createdAt: Date;
  updatedAt: Date;
}

interface IdentityRow {
  id: string;
  state: IdentityState;
  display_name: string;
  assurance: IdentityAssurance;
  created_at: Date;
  updated_at: Date;
}

const toIdentity = (row: IdentityRow): Identity => ({
  id: row.id as Sub,
  state: row.state,
  displayName: row.display_name,
  assurance: row.assurance,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export async function findIdentity(sql: Executor, id: Sub): Promise<Identity | null> {
  const [row] = await sql<IdentityRow[]>`select * from identities where id = ${id}`;
  return row ? toIdentity(row) : null;
}

/**
 * Locks the identity's row until the transaction ends: the one lock every change of what the identity's sessions may
 * do takes first (a second factor added, a session settled, a factor removed), so such changes happen one at a time.
 */
export async function lockIdentity(tx: Executor, id: Sub): Promise<void> {
  await tx`select 1 from identities where id = ${id} for update`;
}

export async function findMembershipRoles(
  sql: Executor,
  organizationId: string,
  identityId: Sub,
): Promise<string[] | null> {
  const [row] = await sql<{ roles: string[] }[]>`
    select roles from memberships where organization_id = ${organizationId} and identity_id = ${identityId}`;
  return row ? row.roles : null;
}

export interface PrimaryEmail {
  address: string;
  verified: boolean;
}

/** The identity's primary email and whether it was verified: what OIDC `email`/`email_verified` claims show. */
export async function findPrimaryEmail(sql: Executor, sub: Sub): Promise<PrimaryEmail | null> {
  const [row] = await sql<{ address: string; verified_at: Date | null }[]>`
    select address, verified_at from emails where identity_id = ${sub} and is_primary`;
  return row ? { address: row.address, verified: row.verified_at !== null } : null;
}

/**
 * Who has verified this address (any identity that is not deleted, primary or not), with the address as stored:
 * sign-up treats it as registered even when nobody signs in with it by password.
 */
export async function findVerifiedEmailHolder(
  sql: Executor,
  normalized: string,
): Promise<{ identityId: Sub; address: string } | null> {
  const [row] = await sql<{ identity_id: string; address: string }[]>`
    select e.identity_id, e.address from emails e join identities i on i.id = e.identity_id
    where e.normalized = ${normalized} and e.verified_at is not null and i.state <> 'deleted'
    order by e.is_primary desc, e.verified_at
    limit 1`;
  return row ? { identityId: row.identity_id as Sub, address: row.address } : null;
}

/**
 * Any identity that is not deleted and has this address on record, verified or not (an invitation must not hand an
 * address someone already uses to a second account). Pending sign-ups come last: they hold no address (signup.ts).
 */
export async function findEmailHolder(
  sql: Executor,
  normalized: string,
): Promise<{ identityId: Sub; state: IdentityState } | null> {
  const [row] = await sql<{ identity_id: string; state: IdentityState }[]>`
    select e.identity_id, i.state from emails e join identities i on i.id = e.identity_id
    where e.normalized = ${normalized} and i.state <> 'deleted'
    order by (i.state = 'pending_verification'), e.created_at
    limit 1`;
  return row ? { identityId: row.identity_id as Sub, state: row.state } : null;
}

/** Serializes, until the transaction ends, every transaction that takes this lock for the same address. */
export async function lockEmailAddress(sql: Executor, normalized: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`email:${normalized}`}, 0))`;
}

export interface NewIdentity {
  displayName: string;
  assurance: IdentityAssurance;
  state?: IdentityState;
  /** Becomes the primary email record; never used to find or merge another identity. */
  email?: { address: string; verified: boolean };
}

export async function insertIdentity(sql: Executor, input: NewIdentity): Promise<Sub> {
  const id = newSub();
  await sql`insert into identities (id, state, display_name, assurance)
            values (${id}, ${input.state ?? 'active'}, ${input.displayName}, ${input.assurance})`;
  if (input.email)
    await sql`insert into emails (identity_id, address, normalized, is_primary, verified_at)
              values (${id}, ${input.email.address}, ${normalizeEmail(input.email.address)}, true,
                      ${input.email.verified ? new Date() : null})`;
  return id;
}

export async function upsertMembership(sql: Executor, organizationId: string, identityId: Sub, roles: string[]) {
  await sql`insert into memberships (organization_id, identity_id, roles) values (${organizationId}, ${identityId}, ${roles})
            on conflict (organization_id, identity_id) do update set roles = excluded.roles`;
}

export type MethodKind = 'password' | 'passkey' | 'federated' | 'web3' | 'saml' | 'ldap';

export interface SignInMethod {
  id: string;
  identityId: Sub;
  kind: MethodKind;
  provider: string;
  externalSubject: string;
  label: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

interface MethodRow {
  id: string;
  identity_id: string;
  kind: MethodKind;
  provider: string;
  external_subject: string;
  label: string;
  created_at: Date;
  last_used_at: Date | null;
}

const toMethod = (row: MethodRow): SignInMethod => ({
  id: String(row.id),
  identityId: row.identity_id as Sub,
  kind: row.kind,
  provider: row.provider,
  externalSubject: row.external_subject,
  label: row.label,
  createdAt: row.created_at,
  lastUsedAt: row.last_used_at,
});

export interface NewSignInMethod {
  identityId: Sub;
  kind: MethodKind;
  provider: string;
  externalSubject: string;
  label?: string;
}

/**
 * Inserts the method, or finds who already holds (kind, provider, external_subject). The unique constraint decides
 * atomically: two identities racing for one external account cannot both win.
 */
export async function insertSignInMethod(
  sql: Executor,
  input: NewSignInMethod,
): Promise<{ inserted: boolean; method: SignInMethod }> {
  const [row] = await sql<MethodRow[]>`
    insert into sign_in_methods (identity_id, kind, provider, external_subject, label)
    values (${input.identityId}, ${input.kind}, ${input.provider}, ${input.externalSubject}, ${input.label ?? ''})
    on conflict (kind, provider, external_subject) do nothing
    returning *`;
  if (row) return { inserted: true, method: toMethod(row) };
  const [holder] = await sql<MethodRow[]>`
    select * from sign_in_methods
    where kind = ${input.kind} and provider = ${input.provider} and external_subject = ${input.externalSubject}`;
  if (!holder) throw new Error('sign-in method conflict without a holder');
  return { inserted: false, method: toMethod(holder) };
}

/** Who holds a sign-in method, e.g. the local password method for a normalized email; null when nobody does. */
export async function findSignInMethodOwner(
  sql: Executor,
  kind: MethodKind,
  provider: string,
  externalSubject: string,
): Promise<Sub | null> {
  const [row] = await sql<{ identity_id: string }[]>`
    select identity_id from sign_in_methods
    where kind = ${kind} and provider = ${provider} and external_subject = ${externalSubject}`;
  return row ? (row.identity_id as Sub) : null;
}

export type MethodRemoval = 'removed' | 'not_found' | 'last';

/**
 * Deletes a method unless it is the identity's last one. The identity row is locked first, so two concurrent
 * removals of an identity's last two methods cannot both succeed.
 */
export async function deleteSignInMethodUnlessLast(
  sql: Sql,
  identityId: Sub,
  methodId: string,
): Promise<MethodRemoval> {
  return await sql.begin(async (tx) => {
    await tx`select 1 from identities where id = ${identityId} for update`;
    const deleted = await tx`
      delete from sign_in_methods m
      where m.id = ${methodId} and m.identity_id = ${identityId}
        and exists (select 1 from sign_in_methods o where o.identity_id = ${identityId} and o.id <> m.id)
      returning m.id`;
    if (deleted.length > 0) return 'removed';
    const [found] = await tx`select 1 from sign_in_methods where id = ${methodId} and identity_id = ${identityId}`;
    return found ? 'last' : 'not_found';
  });
}

export async function listSignInMethods(sql: Executor, identityId: Sub): Promise<SignInMethod[]> {
  const rows = await sql<MethodRow[]>`select * from sign_in_methods where identity_id = ${identityId} order by id`;
  return rows.map(toMethod);
}

/** Marks a method used, found by what it is (the caller knows the external account, not the row id). */
export async function touchSignInMethodOf(
  sql: Executor,
  identityId: Sub,
  kind: MethodKind,
  provider: string,
  externalSubject: string,
  now: Date,
): Promise<void> {
  await sql`update sign_in_methods set last_used_at = ${now}
            where identity_id = ${identityId} and kind = ${kind} and provider = ${provider}
              and external_subject = ${externalSubject}`;
}

/** Renames one of the identity's methods (the name people see); false when it has no such method. */
export async function relabelSignInMethod(
  sql: Executor,
  identityId: Sub,
  methodId: string,
  label: string,
): Promise<boolean> {
  const rows = await sql`
    update sign_in_methods set label = ${label} where id = ${methodId} and identity_id = ${identityId} returning id`;
  return rows.length === 1;
}

export async function touchSignInMethod(sql: Executor, methodId: string, now: Date): Promise<void> {
  await sql`update sign_in_methods set last_used_at = ${now} where id = ${methodId}`;
}

// Account self-service (src/account) changes identities only through these.

export interface Profile {
  id: Sub;
  state: IdentityState;
  displayName: string;
  assurance: IdentityAssurance;
  email: string | null;
  emailVerified: boolean;
  createdAt: Date;
}

export async function findProfile(sql: Executor, id: Sub): Promise<Profile | null> {
  const [row] = await sql<(IdentityRow & { address: string | null; verified_at: Date | null })[]>`
    select i.*, e.address, e.verified_at from identities i
    left join emails e on e.identity_id = i.id and e.is_primary
    where i.id = ${id}`;
  if (!row) return null;
  return { ...toIdentity(row), email: row.address, emailVerified: row.verified_at !== null };
}

export async function updateDisplayName(sql: Executor, id: Sub, displayName: string, now: Date): Promise<void> {
  await sql`update identities set display_name = ${displayName}, updated_at = ${now} where id = ${id}`;
  forgetIdentityOnCommit(sql, id);
}

/** The language the person chose (src/i18n/locales.ts), or null to follow their browser. */
export async function findIdentityLocale(sql: Executor, id: Sub): Promise<string | null> {
  const [row] = await sql<{ locale: string | null }[]>`select locale from identities where id = ${id}`;
  return row?.locale ?? null;
}

export async function updateIdentityLocale(sql: Executor, id: Sub, locale: string | null, now: Date): Promise<void> {
  await sql`update identities set locale = ${locale}, updated_at = ${now} where id = ${id}`;
  forgetIdentityOnCommit(sql, id);
}

/**
 * A verified sign-up: pending_verification → active, and the address verified. False if it was not pending. The
 * mailbox owner proved the address, not any other way in, so every sign-in method but the sign-up's password goes
 * (the account module decides what that password is: account/signup-password.ts).
 */
export async function activatePendingIdentity(sql: Executor, id: Sub, address: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update identities set state = 'active', updated_at = ${now}
    where id = ${id} and state = 'pending_verification' returning id`;
  if (rows.length === 0) return false;
  await sql`update emails set verified_at = ${now} where identity_id = ${id} and normalized = ${normalizeEmail(address)}`;
  forgetIdentityOnCommit(sql, id);
  return true;
}

/**
 * Deletes every sign-in method of the identity but its local password (with them their credentials: passkeys,
 * linked provider accounts, wallets, SAML and directory bindings); returns the kinds deleted.
 */
export async function deleteSignInMethodsButPassword(sql: Executor, id: Sub): Promise<string[]> {
  const rows = await sql<{ kind: string }[]>`
    delete from sign_in_methods where identity_id = ${id} and not (kind = 'password' and provider = 'local')
    returning kind`;
  return rows.map((r) => r.kind);
}

/** Marks an identity's address verified (someone proved the mailbox); an address verified earlier keeps its date. */
export async function markEmailVerified(sql: Executor, id: Sub, normalized: string, now: Date): Promise<void> {
  await sql`update emails set verified_at = ${now}
            where identity_id = ${id} and normalized = ${normalized} and verified_at is null`;
  forgetIdentityOnCommit(sql, id);
}

/** Removes a sign-up that was never verified, so its address can be claimed again by whoever can read its mail. */
export async function deletePendingIdentity(sql: Executor, id: Sub): Promise<boolean> {
  const rows = await sql`delete from identities where id = ${id} and state = 'pending_verification' returning id`;
  if (rows.length > 0) forgetIdentityOnCommit(sql, id);
  return rows.length > 0;
}

/**
 * Makes a verified address the identity's primary one, replacing the old primary record, and moves the password
 * sign-in subject along with it. Returns false when another identity already signs in with that address.
 */
export async function replacePrimaryEmail(sql: Executor, id: Sub, address: string, now: Date): Promise<boolean> {
  const normalized = normalizeEmail(address);
  const moved = await sql`
    update sign_in_methods set external_subject = ${normalized}
    where identity_id = ${id} and kind = 'password' and provider = 'local'
      and not exists (select 1 from sign_in_methods o where o.kind = 'password' and o.provider = 'local'
                      and o.external_subject = ${normalized} and o.identity_id <> ${id})
    returning id`;
  const [password] = await sql`select 1 from sign_in_methods where identity_id = ${id} and kind = 'password'`;
  if (password && moved.length === 0) return false;
  await sql`delete from emails where identity_id = ${id} and (is_primary or normalized = ${normalized})`;
  await sql`insert into emails (identity_id, address, normalized, is_primary, verified_at)
            values (${id}, ${address}, ${normalized}, true, ${now})`;
  await sql`update identities set updated_at = ${now} where id = ${id}`;
  forgetIdentityOnCommit(sql, id);
  return true;
}

/** What OIDC userinfo claims need of an active identity: its name and primary email (read by oauth/access-token-store.ts). */
export interface ClaimsProfile {
  displayName: string;
  email: string | null;
  emailVerified: boolean;
}

/**
 * How each of these identities is shown to an administrator (the audit log's actor and subject): its display name,
 * else its primary email address. Ids that name no identity are left out.
 */
export async function findIdentityLabels(sql: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; label: string | null }[]>`
    select i.id, coalesce(nullif(i.display_name, ''), e.address) as label from identities i
    left join emails e on e.identity_id = i.id and e.is_primary
    where i.id = any(${ids}::text[])`;
  return new Map(rows.filter((r) => r.label).map((r) => [r.id, r.label as string]));
}
