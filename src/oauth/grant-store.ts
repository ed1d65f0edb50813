// The only SQL for OAuth grants: the family a code exchange creates, which every refresh token and access token of it
// belongs to. Revoking the grant ends them all (code reuse, refresh replay, RFC 7009, sign-out, suspension), and the
// revocations that follow a session's end say which clients registered for back-channel logout.

import { forgetOnCommit } from '../db/forget-on-commit.ts';
import type { Executor } from '../db/pool.ts';
import { grantKey } from '../db/token-state-keys.ts';

export interface GrantFacts {
  grantId: string;
  clientId: string;
  identityId: string;
  sessionId: string;
  scope: string;
  /** RFC 8707 resources the authorization named (audiences its tokens may have); empty without `resource`. */
  resources: string[];
  authTime: Date;
  acr: string;
  amr: string[];
  /** The authentication request's nonce, repeated in every ID token of the grant (null when none was sent). */
  nonce: string | null;
  /** RFC 9449 §5: the DPoP key a public client's refresh tokens are bound to; null when unbound. */
  dpopJkt: string | null;
}

/** A grant's facts from a row of oauth_grants, or of a code or refresh-token query (`grant_id` then names it). */
export const grantFactsOf = (r: Record<string, unknown>): GrantFacts => ({
  grantId: (r.grant_id ?? r.id) as string,
  clientId: r.client_id as string,
  identityId: r.identity_id as string,
  sessionId: r.session_id as string,
  scope: r.scope as string,
  resources: (r.resources as string[] | undefined) ?? [],
  authTime: r.auth_time as Date,
  acr: r.acr as string,
  amr: r.amr as string[],
  nonce: r.nonce as string | null,
  dpopJkt: (r.dpop_jkt as string | null | undefined) ?? null,
});

/**
 * Revokes a grant and says what there was: `found`, whether such a grant exists at all (for a replayed code, whether it
 * was exchanged), and `revoked`, whether this call ended it (false when it had ended already).
 */
export async function revokeGrantIfExists(
  sql: Executor,
  grantId: string,
  now: Date,
): Promise<{ found: boolean; revoked: boolean }> {
  const [row] = await sql<{ found: boolean; revoked: boolean }[]>`
    with revoked as (
      update oauth_grants set revoked_at = ${now} where id = ${grantId} and revoked_at is null returning id)
    select exists (select 1 from oauth_grants where id = ${grantId}) as found, exists (select 1 from revoked) as revoked`;
  // Forgotten even when another request ended it first: this caller's answer must hold here at once either way.
  if (row?.found) forgetOnCommit(sql, [grantKey(grantId)]);
  return { found: row?.found ?? false, revoked: row?.revoked ?? false };
}

/** Revokes a grant: its refresh tokens stop rotating and its access tokens stop introspecting as active. */
export async function revokeGrant(sql: Executor, grantId: string, now: Date): Promise<boolean> {
  const rows =
    await sql`update oauth_grants set revoked_at = ${now} where id = ${grantId} and revoked_at is null returning id`;
  // Even when it had ended already (another node, a concurrent request): the caller is told it is revoked.
  forgetOnCommit(sql, [grantKey(grantId)]);
  return rows.length > 0;
}

/**
 * Narrows a grant's scope to `allowed` (the scopes its client may still have). Only ever removes scopes, so a
 * concurrent narrowing by another node's refresh ends in the same place.
 */
export async function narrowGrantScope(sql: Executor, grantId: string, allowed: string[]): Promise<void> {
  await sql`
    update oauth_grants set scope = (
      select coalesce(string_agg(s, ' ' order by n), '')
      from unnest(string_to_array(scope, ' ')) with ordinality as u(s, n)
      where s = any(${allowed}::text[])
    )
    where id = ${grantId}`;
}

/** A client to tell that a person's session ended (OIDC Back-Channel Logout 1.0): one per client and session. */
export interface LogoutNotice {
  clientId: string;
  identityId: string;
  sessionId: string;
  backchannelLogoutUri: string;
}

const toNotice = (r: Record<string, unknown>): LogoutNotice => ({
  clientId: r.client_id as string,
  identityId: r.identity_id as string,
  sessionId: r.session_id as string,
  backchannelLogoutUri: r.backchannel_logout_uri as string,
});

/** The grants that ended, and the clients among theirs registered for back-channel logout. */
export interface EndedGrants {
  count: number;
  notices: LogoutNotice[];
}

/** Ends the live grants issued from one of an identity's sessions. */
export async function revokeSessionGrants(
  sql: Executor,
  identityId: string,
  sessionId: string,
  now: Date,
): Promise<EndedGrants> {
  const rows = await sql`
    with ended as (
      update oauth_grants set revoked_at = ${now}
      where identity_id = ${identityId} and session_id = ${sessionId} and revoked_at is null
      returning id, client_id, identity_id, session_id)
    select e.id, e.client_id, e.identity_id, e.session_id, c.backchannel_logout_uri
    from ended e join oauth_clients c on c.id = e.client_id`;
  return endedGrants(sql, rows);
}

/** What ended, once this node has been told to forget the grants when the caller's transaction commits. */
function endedGrants(sql: Executor, rows: readonly Record<string, unknown>[]): EndedGrants {
  forgetOnCommit(
    sql,
    rows.map((row) => grantKey(row.id as string)),
  );
  const notices = new Map<string, LogoutNotice>();
  for (const row of rows)
    if (row.backchannel_logout_uri) notices.set(`${row.client_id} ${row.session_id}`, toNotice(row));
  return { count: rows.length, notices: [...notices.values()] };
}

/** The clients holding a live grant from this session that registered for back-channel logout (a sign-out). */
export async function findSessionLogoutNotices(
  sql: Executor,
  identityId: string,
  sessionId: string,
): Promise<LogoutNotice[]> {
  const rows = await sql`
    select distinct g.client_id, g.identity_id, g.session_id, c.backchannel_logout_uri
    from oauth_grants g join oauth_clients c on c.id = g.client_id
    where g.identity_id = ${identityId} and g.session_id = ${sessionId} and g.revoked_at is null
      and c.backchannel_logout_uri is not null`;
  return rows.map(toNotice);
}

/**
 * Revokes every live grant of an identity (suspension, deletion, "sign out everywhere"), or all but those issued
 * from session `keepSessionId`; returns how many.
 */
export async function revokeIdentityGrants(
  sql: Executor,
  identityId: string,
  now: Date,
  keepSessionId: string | null = null,
): Promise<EndedGrants> {
  const rows = await sql`
    with ended as (
      update oauth_grants set revoked_at = ${now}
      where identity_id = ${identityId} and revoked_at is null and session_id is distinct from ${keepSessionId}
      returning id, client_id, identity_id, session_id)
    select e.id, e.client_id, e.identity_id, e.session_id, c.backchannel_logout_uri
    from ended e join oauth_clients c on c.id = e.client_id`;
  return endedGrants(sql, rows);
}
