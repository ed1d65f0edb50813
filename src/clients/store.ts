// The only SQL for oauth_applications, oauth_clients and oauth_resources: what the admin API registers and the
// OAuth engine reads. Uniqueness is the database's job (unique constraints), so two racing creates cannot both win.
// Past 400 lines: the three tables' statements are one registry, and resource changes must see client rows directly.

import { forgetAllOnCommit } from '../db/forget-on-commit.ts';
import type { Executor, Transaction } from '../db/pool.ts';
import type { Position } from '../identity/directory-store.ts';
import type { ClientId } from './ids.ts';

export type Environment = 'development' | 'staging' | 'production';
export type ClientKind = 'browser' | 'native' | 'web' | 'service';

export interface Application {
  id: string;
  identifier: string;
  name: string;
  environment: Environment;
  createdAt: Date;
  updatedAt: Date;
}

export interface Client {
  id: ClientId;
  applicationId: string;
  name: string;
  kind: ClientKind;
  /** HMAC of the secret under the client-secret key; null for public clients. */
  secretHmac: string | null;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  audiences: string[];
  firstParty: boolean;
  /** RFC 7591 §2: how the client authenticates at the token, introspection and revocation endpoints. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** RFC 7591 §2 `jwks`: the client's public keys for private_key_jwt, registered inline; null otherwise. */
  jwks: { keys: Record<string, unknown>[] } | null;
  /** RFC 7591 §2 `jwks_uri`: where the client publishes them instead; null otherwise. */
  jwksUri: string | null;
  /** RFC 9449 §5.2: every token request must carry a DPoP proof. */
  dpopBoundAccessTokens: boolean;
  /** RFC 9126 §6: authorization requests only through PAR. */
  requirePushedAuthorizationRequests: boolean;
  /** OIDC Back-Channel Logout 1.0 §2.2: where logout tokens are POSTed; null for none. */
  backchannelLogoutUri: string | null;
  /**
   * RFC 8693: registered resource audiences this (confidential) client may exchange a person's access token for.
   * Empty: the client may not use token exchange at all.
   */
  tokenExchangeAudiences: string[];
  /** RFC 8628: the client may use the device authorization grant (an administrator allowed it; off by default). */
  deviceAuthorizationGrant: boolean;
  /** §2.2: the client needs `sid` in its logout tokens (sent always; recorded for the client's registration). */
  backchannelLogoutSessionRequired: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type TokenEndpointAuthMethod = 'none' | 'client_secret_post' | 'private_key_jwt';

export interface Resource {
  id: string;
  audience: string;
  name: string;
  scopes: string[];
  createdAt: Date;
  updatedAt: Date;
}

const toApplication = (r: Record<string, unknown>): Application => ({
  id: r.id as string,
  identifier: r.identifier as string,
  name: r.name as string,
  environment: r.environment as Environment,
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
});

const toClient = (r: Record<string, unknown>): Client => ({
  id: r.id as ClientId,
  applicationId: r.application_id as string,
  name: r.name as string,
  kind: r.kind as ClientKind,
  secretHmac: r.secret_hmac as string | null,
  redirectUris: r.redirect_uris as string[],
  postLogoutRedirectUris: r.post_logout_redirect_uris as string[],
  scopes: r.scopes as string[],
  audiences: r.audiences as string[],
  firstParty: r.first_party as boolean,
  tokenEndpointAuthMethod: r.token_endpoint_auth_method as TokenEndpointAuthMethod,
  jwks: (r.jwks as Client['jwks']) ?? null,
  jwksUri: (r.jwks_uri as string | null) ?? null,
  dpopBoundAccessTokens: r.dpop_bound_access_tokens as boolean,
  requirePushedAuthorizationRequests: r.require_pushed_authorization_requests as boolean,
  backchannelLogoutUri: (r.backchannel_logout_uri as string | null) ?? null,
  backchannelLogoutSessionRequired: r.backchannel_logout_session_required as boolean,
  tokenExchangeAudiences: (r.token_exchange_audiences as string[] | undefined) ?? [],
  deviceAuthorizationGrant: (r.device_authorization_grant as boolean | undefined) ?? false,
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
});

const toResource = (r: Record<string, unknown>): Resource => ({
  id: r.id as string,
  audience: r.audience as string,
  name: r.name as string,
  scopes: r.scopes as string[],
  createdAt: r.created_at as Date,
  updatedAt: r.updated_at as Date,
});

/**
 * A page of one of our tables, newest first (as identities and the audit log list, so a record just made leads the
 * first page), at most `limit` rows after `after`. Ordered and compared at millisecond precision, ties broken by id,
 * because a position carries a JavaScript Date (as identity/directory-store.ts pages).
 */
async function pageRows(
  sql: Executor,
  table: 'oauth_applications' | 'oauth_clients' | 'oauth_resources',
  limit: number,
  after: Position | null,
) {
  return sql`
    select * from ${sql(table)}
    where ${after === null} or (date_trunc('milliseconds', created_at), id) < (${after?.createdAt ?? null}::timestamptz, ${after?.id ?? null}::text)
    order by date_trunc('milliseconds', created_at) desc, id desc
    limit ${limit}`;
}

/** Postgres unique_violation: the caller maps it to its 409 code. */
export const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === '23505';

// Applications

export async function insertApplication(sql: Executor, a: Omit<Application, 'updatedAt'>): Promise<Application> {
  const [row] = await sql`
    insert into oauth_applications (id, identifier, name, environment, created_at, updated_at)
    values (${a.id}, ${a.identifier}, ${a.name}, ${a.environment}, ${a.createdAt}, ${a.createdAt}) returning *`;
  return toApplication(row as Record<string, unknown>);
}

export async function findApplication(sql: Executor, id: string): Promise<Application | null> {
  const [row] = await sql`select * from oauth_applications where id = ${id}`;
  return row ? toApplication(row) : null;
}

/**
 * Reads an application inside a transaction and locks it: `update` while its environment changes, `share` while a
 * client of it is validated and written, so a client and an environment change cannot pass each other unchecked.
 */
export async function lockApplication(tx: Executor, id: string, mode: 'update' | 'share'): Promise<Application | null> {
  const [row] =
    mode === 'update'
      ? await tx`select * from oauth_applications where id = ${id} for update`
      : await tx`select * from oauth_applications where id = ${id} for share`;
  return row ? toApplication(row) : null;
}

export async function listApplications(sql: Executor, limit: number, after: Position | null): Promise<Application[]> {
  return (await pageRows(sql, 'oauth_applications', limit, after)).map(toApplication);
}

export async function updateApplication(
  sql: Executor,
  id: string,
  changes: { identifier?: string; name?: string; environment?: Environment },
  now: Date,
): Promise<Application | null> {
  const [row] = await sql`
    update oauth_applications set identifier = coalesce(${changes.identifier ?? null}, identifier),
      name = coalesce(${changes.name ?? null}, name), environment = coalesce(${changes.environment ?? null}, environment),
      updated_at = ${now}
    where id = ${id} returning *`;
  return row ? toApplication(row) : null;
}

/**
 * Deletes an application without clients; 'in_use' when clients remain (the foreign key refuses). The delete runs in
 * a savepoint, so the refusal leaves the caller's transaction usable.
 */
export async function deleteApplication(tx: Transaction, id: string): Promise<'deleted' | 'missing' | 'in_use'> {
  try {
    const rows = await tx.savepoint((sp) => sp`delete from oauth_applications where id = ${id} returning id`);
    return rows.length > 0 ? 'deleted' : 'missing';
  } catch (error) {
    // ON DELETE RESTRICT answers 23001 restrict_violation from PostgreSQL 18 (the embedded server `npm test` starts
    // without DATABASE_URL), 23503 foreign_key_violation before: both mean a client still belongs to the application.
    if (['23001', '23503'].includes((error as { code?: string }).code ?? '')) return 'in_use';
    throw error;
  }
}

// Clients

export type NewClient = Omit<Client, 'updatedAt'>;

export async function insertClient(sql: Executor, c: NewClient): Promise<Client> {
  const [row] = await sql`
    insert into oauth_clients (id, application_id, name, kind, secret_hmac, redirect_uris, post_logout_redirect_uris,
                               scopes, audiences, first_party, token_endpoint_auth_method, jwks, jwks_uri,
                               dpop_bound_access_tokens, require_pushed_authorization_requests, backchannel_logout_uri,
                               backchannel_logout_session_required, token_exchange_audiences,
                               device_authorization_grant, created_at, updated_at)
    values (${c.id}, ${c.applicationId}, ${c.name}, ${c.kind}, ${c.secretHmac}, ${c.redirectUris},
            ${c.postLogoutRedirectUris}, ${c.scopes}, ${c.audiences}, ${c.firstParty}, ${c.tokenEndpointAuthMethod},
            ${c.jwks === null ? null : sql.json(c.jwks as never)}, ${c.jwksUri}, ${c.dpopBoundAccessTokens},
            ${c.requirePushedAuthorizationRequests}, ${c.backchannelLogoutUri}, ${c.backchannelLogoutSessionRequired},
            ${c.tokenExchangeAudiences}, ${c.deviceAuthorizationGrant}, ${c.createdAt}, ${c.createdAt})
    returning *`;
  return toClient(row as Record<string, unknown>);
}

export async function findClient(sql: Executor, id: string): Promise<Client | null> {
  const [row] = await sql`select * from oauth_clients where id = ${id}`;
  return row ? toClient(row) : null;
}

/** Reads a client inside a transaction and locks it for an update, so concurrent updates apply one after the other. */
export async function lockClient(tx: Executor, id: string): Promise<Client | null> {
  const [row] = await tx`select * from oauth_clients where id = ${id} for update`;
  return row ? toClient(row) : null;
}

export async function listClients(sql: Executor, limit: number, after: Position | null): Promise<Client[]> {
  return (await pageRows(sql, 'oauth_clients', limit, after)).map(toClient);
}

export async function listApplicationClients(sql: Executor, applicationId: string): Promise<Client[]> {
  return (await sql`select * from oauth_clients where application_id = ${applicationId} order by created_at, id`).map(
    toClient,
  );
}

/** What a person is shown about a client that holds their grant: its name, its application's, and its trust. */
export interface ClientLabel {
  clientId: ClientId;
  name: string;
  applicationId: string;
  applicationName: string;
  firstParty: boolean;
}

export async function findClientLabels(sql: Executor, ids: string[]): Promise<ClientLabel[]> {
  if (ids.length === 0) return [];
  const rows = await sql<
    { id: ClientId; name: string; first_party: boolean; application_id: string; application_name: string }[]
  >`
    select c.id, c.name, c.first_party, a.id as application_id, a.name as application_name
    from oauth_clients c join oauth_applications a on a.id = c.application_id
    where c.id = any(${ids}::text[])`;
  return rows.map((r) => ({
    clientId: r.id,
    name: r.name,
    applicationId: r.application_id,
    applicationName: r.application_name,
    firstParty: r.first_party,
  }));
}

export type ClientChanges = Partial<
  Pick<
    Client,
    | 'name'
    | 'redirectUris'
    | 'postLogoutRedirectUris'
    | 'scopes'
    | 'audiences'
    | 'firstParty'
    | 'dpopBoundAccessTokens'
    | 'requirePushedAuthorizationRequests'
    | 'backchannelLogoutUri'
    | 'backchannelLogoutSessionRequired'
    | 'jwks'
    | 'jwksUri'
    | 'tokenExchangeAudiences'
    | 'deviceAuthorizationGrant'
  >
>;

export async function updateClient(sql: Executor, id: string, next: Client, now: Date): Promise<Client | null> {
  const [row] = await sql`
    update oauth_clients set name = ${next.name}, redirect_uris = ${next.redirectUris},
      post_logout_redirect_uris = ${next.postLogoutRedirectUris}, scopes = ${next.scopes},
      audiences = ${next.audiences}, first_party = ${next.firstParty},
      dpop_bound_access_tokens = ${next.dpopBoundAccessTokens},
      require_pushed_authorization_requests = ${next.requirePushedAuthorizationRequests},
      backchannel_logout_uri = ${next.backchannelLogoutUri},
      backchannel_logout_session_required = ${next.backchannelLogoutSessionRequired},
      token_exchange_audiences = ${next.tokenExchangeAudiences},
      device_authorization_grant = ${next.deviceAuthorizationGrant},
      jwks = ${next.jwks === null ? null : sql.json(next.jwks as never)}, jwks_uri = ${next.jwksUri}, updated_at = ${now}
    where id = ${id} returning *`;
  return row ? toClient(row) : null;
}

export async function updateClientSecret(sql: Executor, id: string, secretHmac: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update oauth_clients set secret_hmac = ${secretHmac}, updated_at = ${now}
    where id = ${id} and secret_hmac is not null returning id`;
  return rows.length > 0;
}

export async function deleteClient(sql: Executor, id: string): Promise<boolean> {
  const deleted = (await sql`delete from oauth_clients where id = ${id} returning id`).length > 0;
  // Its grants went with it by cascade, too many to name: this node reads every token's state again.
  if (deleted) forgetAllOnCommit(sql);
  return deleted;
}

// Resources

export async function insertResource(sql: Executor, r: Omit<Resource, 'updatedAt'>): Promise<Resource> {
  const [row] = await sql`
    insert into oauth_resources (id, audience, name, scopes, created_at, updated_at)
    values (${r.id}, ${r.audience}, ${r.name}, ${r.scopes}, ${r.createdAt}, ${r.createdAt}) returning *`;
  return toResource(row as Record<string, unknown>);
}

export async function findResource(sql: Executor, id: string): Promise<Resource | null> {
  const [row] = await sql`select * from oauth_resources where id = ${id}`;
  return row ? toResource(row) : null;
}

export async function findResourcesByAudience(sql: Executor, audiences: string[]): Promise<Resource[]> {
  return (await sql`select * from oauth_resources where audience = any(${audiences})`).map(toResource);
}

/**
 * The resources for these audiences, share-locked until the transaction ends, for validating a client write: a
 * resource update or delete (lockResource) then waits for the client to commit, and its in-use check sees it.
 */
export async function lockResourcesByAudience(tx: Executor, audiences: string[]): Promise<Resource[]> {
  return (await tx`select * from oauth_resources where audience = any(${audiences}) order by id for share`).map(
    toResource,
  );
}

/** Advisory lock key of resource updates and deletes (db/migrate.ts's MIGRATION_LOCK is "gate"). */
const RESOURCE_CHANGES_LOCK = 0x7265_736f; // "reso"

/**
 * Locks a resource for an update or delete in this transaction and reads it; null when there is none. A client
 * write that share-locked it commits first, and the in-use check that follows is a new statement, so under READ
 * COMMITTED it sees that client; a client write that comes later waits, then validates against the changed resource. Resource
 * changes also take one transaction-level advisory lock, so two of them never pass each other: the in-use check
 * lets a resource drop a scope another resource of the client defines, which must not be dropped meanwhile.
 */
export async function lockResource(tx: Executor, id: string): Promise<Resource | null> {
  await tx`select pg_advisory_xact_lock(${RESOURCE_CHANGES_LOCK})`;
  const [row] = await tx`select * from oauth_resources where id = ${id} for update`;
  return row ? toResource(row) : null;
}

/** Resources that define any of `scopes` (scopes are not namespaced, so several may). */
export async function findResourcesByScopes(sql: Executor, scopes: string[]): Promise<Resource[]> {
  if (scopes.length === 0) return [];
  return (await sql`select * from oauth_resources where scopes && ${scopes}::text[] order by name, id`).map(toResource);
}

export async function listResources(sql: Executor, limit: number, after: Position | null): Promise<Resource[]> {
  return (await pageRows(sql, 'oauth_resources', limit, after)).map(toResource);
}

/** A scope an update would take from a resource while a client provisioned for it still holds it. */
export interface HeldScope {
  clientId: string;
  scope: string;
}

/**
 * Updates a resource unless its new scopes drop one that a client provisioned for it (an audience, or a token
 * exchange audience) still holds and no other resource of that client defines (scopes are not namespaced, so another
 * audience of the client may carry it); the check and the update are one statement (see lockResource).
 */
export async function updateResource(
  sql: Executor,
  id: string,
  changes: { name?: string; scopes?: string[] },
  now: Date,
): Promise<Resource | 'missing' | HeldScope> {
  const scopes = changes.scopes ?? null;
  const [row] = await sql`
    with target as (select id, audience, scopes from oauth_resources where id = ${id}),
    dropped as (
      select s from target, unnest(target.scopes) s where ${scopes}::text[] is not null and s <> all(${scopes}::text[])
    ),
    held as (
      select c.id as client_id, d.s as scope from oauth_clients c, target, dropped d
      where target.audience = any(c.audiences || c.token_exchange_audiences) and d.s = any(c.scopes)
        and not exists (select 1 from oauth_resources o
                        where o.id <> target.id and o.audience = any(c.audiences || c.token_exchange_audiences)
                          and d.s = any(o.scopes))
      order by c.id, d.s limit 1
    ),
    updated as (
      update oauth_resources set name = coalesce(${changes.name ?? null}, name), scopes = coalesce(${scopes}, scopes),
        updated_at = ${now}
      where id = ${id} and not exists (select 1 from held) returning *
    )
    select u.*, (select count(*) from target)::int as found, h.client_id as held_by, h.scope as held_scope
    from (select 1) as one left join updated u on true left join held h on true`;
  if (!row || row.found === 0) return 'missing';
  if (row.held_by !== null) return { clientId: row.held_by as string, scope: row.held_scope as string };
  return toResource(row);
}

/**
 * Deletes a resource no client is provisioned for, as an audience or a token exchange audience; the check and the
 * delete are one statement (see lockResource).
 */
export async function deleteResource(sql: Executor, id: string): Promise<'deleted' | 'missing' | 'in_use'> {
  const [row] = await sql`
    with target as (select audience from oauth_resources where id = ${id}),
    blocked as (select 1 from oauth_clients, target
                where target.audience = any(audiences || token_exchange_audiences) limit 1),
    removed as (delete from oauth_resources where id = ${id} and not exists (select 1 from blocked) returning id)
    select (select count(*) from target)::int as found, (select count(*) from removed)::int as removed`;
  if (!row || row.found === 0) return 'missing';
  return row.removed > 0 ? 'deleted' : 'in_use';
}

/** The names of these applications, clients and resources by id (the audit log's subjects); unknown ids left out. */
export async function findRegistryLabels(sql: Executor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; name: string }[]>`
    select id, name from oauth_applications where id = any(${ids}::text[])
    union all select id, name from oauth_clients where id = any(${ids}::text[])
    union all select id, name from oauth_resources where id = any(${ids}::text[])`;
  return new Map(rows.map((r) => [r.id, r.name]));
}
