// The only SQL for codes, grants, refresh tokens, consents and revoked access tokens. Every security decision is
// one statement: a code is consumed and its grant created in one DELETE…RETURNING with CTEs, a refresh token is
// rotated in one, so of two concurrent requests exactly one wins on every node.
import type { Executor } from '../db/pool.ts';
import type { ClaimsProfile } from '../identity/store.ts';

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

export interface NewAuthorizationCode extends Omit<GrantFacts, 'dpopJkt'> {
  codeHash: string;
  redirectUri: string;
  codeChallenge: string;
  nonce: string | null;
  /** RFC 9449 §10: the DPoP key thumbprint the code may only be exchanged with; null when unbound. */
  dpopJkt: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function insertAuthorizationCode(sql: Executor, c: NewAuthorizationCode): Promise<void> {
  await sql`
    insert into oauth_authorization_codes (code_hash, grant_id, client_id, identity_id, session_id, redirect_uri, scope,
      resources, code_challenge, nonce, dpop_jkt, auth_time, acr, amr, created_at, expires_at)
    values (${c.codeHash}, ${c.grantId}, ${c.clientId}, ${c.identityId}, ${c.sessionId}, ${c.redirectUri}, ${c.scope},
      ${c.resources}, ${c.codeChallenge}, ${c.nonce}, ${c.dpopJkt}, ${c.authTime}, ${c.acr}, ${c.amr}, ${c.createdAt},
      ${c.expiresAt})`;
}

const toFacts = (r: Record<string, unknown>): GrantFacts => ({
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

export interface CodeExchange {
  codeHash: string;
  clientId: string;
  redirectUri: string;
  /** S256 of the presented verifier: it must equal the stored challenge. */
  challenge: string;
  /** The token request's RFC 8707 `resource`: the code must have been issued for it. Null when none was sent. */
  resource: string | null;
  now: Date;
  /**
   * The grant's id, derived from the code (ids.ts): the exchange deletes the code's row, and a replay of the code
   * finds its grant by this id. A code issued by an earlier release (with a random id in its row) makes its grant
   * under this one too.
   */
  grantId: string;
  /** The refresh token to issue if the granted scope includes offline_access. */
  refreshTokenHash: string;
  refreshIdleExpiresAt: Date;
  refreshAbsoluteSeconds: number;
  /** The JWK thumbprint the grant's refresh tokens are bound to (RFC 9449 §5); null to leave them unbound. */
  dpopJkt: string | null;
  /** The thumbprint of the request's DPoP proof key: a code bound to a key (RFC 9449 §10) needs it. Null: no proof. */
  proofJkt: string | null;
}

/**
 * The code's sign-in session is live and its identity active. Suspension, sign-out and "sign out everywhere" end
 * the session and revoke the grants that exist; a code issued just before must not create a grant after them. The
 * exchange share-locks both rows: one that races such a change waits for its commit and then sees the ended session,
 * and a change that comes second waits for the exchange, so its grant revocation sees the new grant.
 */
const liveSession = (sql: Executor, now: Date, lock: boolean) => sql`
  exists (select 1 from sessions s join identities i on i.id = s.identity_id
          where s.id = oauth_authorization_codes.session_id and s.identity_id = oauth_authorization_codes.identity_id
            and s.revoked_at is null and s.idle_expires_at > ${now} and s.absolute_expires_at > ${now}
            and i.state = 'active'
          ${lock ? sql`for share of s, i` : sql``})`;

/**
 * Consumes a live, unused code bound to this client, redirect URI and challenge, whose sign-in session is live, and
 * creates its grant (and refresh token when offline_access was granted) in the same statement. The code's row goes:
 * its grant, whose id the code names, is what a replay is recognised by (revokeGrantIfExists), so exchanged codes
 * leave nothing behind to purge. Null when nothing matched: see findAuthorizationCode.
 */
export async function consumeAuthorizationCode(
  sql: Executor,
  e: CodeExchange,
): Promise<(GrantFacts & { refreshIssued: boolean }) | null> {
  const [row] = await sql`
    with used as (
      delete from oauth_authorization_codes
      where code_hash = ${e.codeHash} and used_at is null and expires_at > ${e.now} and client_id = ${e.clientId}
        and redirect_uri = ${e.redirectUri} and code_challenge = ${e.challenge}
        and (${e.resource}::text is null or ${e.resource}::text = any(resources))
        and (dpop_jkt is null or dpop_jkt = ${e.proofJkt}::text)
        and ${liveSession(sql, e.now, true)}
      returning *
    ), grant_row as (
      insert into oauth_grants (id, client_id, identity_id, session_id, scope, resources, auth_time, acr, amr, nonce,
        dpop_jkt, created_at, expires_at)
      select ${e.grantId}, client_id, identity_id, session_id, scope, resources, auth_time, acr, amr, nonce, ${e.dpopJkt}::text, ${e.now},
             auth_time + make_interval(secs => ${e.refreshAbsoluteSeconds})
      from used returning id, expires_at
    ), refresh as (
      insert into oauth_refresh_tokens (token_hash, grant_id, client_id, created_at, expires_at, names_grant)
      select ${e.refreshTokenHash}, g.id, u.client_id, ${e.now}, least(${e.refreshIdleExpiresAt}::timestamptz, g.expires_at),
             true
      from used u cross join grant_row g
      where 'offline_access' = any(string_to_array(u.scope, ' ')) and g.expires_at > ${e.now}
      returning token_hash
    )
    select u.*, exists (select 1 from refresh) as refresh_issued from used u`;
  if (!row) return null;
  // The code row's dpop_jkt is the code's binding; the grant's is the refresh binding chosen for this exchange.
  return {
    ...toFacts({ ...row, grant_id: e.grantId, dpop_jkt: e.dpopJkt }),
    refreshIssued: row.refresh_issued as boolean,
  };
}

export interface StoredCode {
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resources: string[];
  /** RFC 9449 §10: the DPoP key thumbprint the code is bound to; null when unbound. */
  dpopJkt: string | null;
  expiresAt: Date;
  usedAt: Date | null;
  /** Its sign-in session is still live and its identity active. */
  sessionLive: boolean;
}

export async function findAuthorizationCode(sql: Executor, codeHash: string, now: Date): Promise<StoredCode | null> {
  const [row] = await sql`
    select *, ${liveSession(sql, now, false)} as session_live from oauth_authorization_codes where code_hash = ${codeHash}`;
  if (!row) return null;
  return {
    grantId: row.grant_id as string,
    clientId: row.client_id as string,
    redirectUri: row.redirect_uri as string,
    codeChallenge: row.code_challenge as string,
    resources: row.resources as string[],
    dpopJkt: row.dpop_jkt as string | null,
    expiresAt: row.expires_at as Date,
    usedAt: row.used_at as Date | null,
    sessionLive: row.session_live as boolean,
  };
}

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
  return { found: row?.found ?? false, revoked: row?.revoked ?? false };
}

/** Revokes a grant: its refresh tokens stop rotating and its access tokens stop introspecting as active. */
export async function revokeGrant(sql: Executor, grantId: string, now: Date): Promise<boolean> {
  const rows =
    await sql`update oauth_grants set revoked_at = ${now} where id = ${grantId} and revoked_at is null returning id`;
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

export interface Rotation {
  tokenHash: string;
  /** The grant the token and its successor belong to (the successor's value names it). */
  grantId: string;
  clientId: string;
  successorHash: string;
  successorSealed: string;
  /** RFC 8707 `resource` of the request: the grant must name it. Null when none was sent. */
  resource: string | null;
  /** The request's DPoP key thumbprint: a grant bound to a key rotates only for it. */
  jkt: string | null;
  now: Date;
  idleExpiresAt: Date;
  /**
   * The family's tokens rotated before this are deleted: their grace window is over, and each names its grant, so
   * presenting one later is still known as a replay (refresh-token-value.ts).
   */
  spentBefore: Date;
}

/**
 * Rotates a live refresh token of a live grant: marks it rotated, inserts its successor and deletes the family's
 * tokens spent before `spentBefore`, in one statement. The presented token is not among them: the delete sees the
 * table as the statement found it, where that token was not yet rotated.
 */
export async function rotateRefreshToken(sql: Executor, r: Rotation): Promise<GrantFacts | null> {
  const [row] = await sql`
    with old as (
      update oauth_refresh_tokens t set rotated_at = ${r.now}, successor_sealed = ${r.successorSealed}
      from oauth_grants g
      where t.token_hash = ${r.tokenHash} and t.grant_id = ${r.grantId} and t.rotated_at is null and t.expires_at > ${r.now}
        and t.client_id = ${r.clientId} and g.id = t.grant_id and g.revoked_at is null and g.expires_at > ${r.now}
        and (${r.resource}::text is null or ${r.resource}::text = any(g.resources))
        and (g.dpop_jkt is null or g.dpop_jkt = ${r.jkt}::text)
      returning g.*
    ), successor as (
      insert into oauth_refresh_tokens (token_hash, grant_id, client_id, created_at, expires_at, names_grant)
      select ${r.successorHash}, id, client_id, ${r.now}, least(${r.idleExpiresAt}::timestamptz, expires_at), true from old
    ), spent as (
      delete from oauth_refresh_tokens d using old
      where d.grant_id = old.id and d.names_grant and d.created_at < ${r.spentBefore}
        and d.rotated_at < ${r.spentBefore}
    )
    select * from old`;
  return row ? toFacts(row) : null;
}

export interface RefreshTokenState extends GrantFacts {
  rotatedAt: Date | null;
  successorSealed: string | null;
  expiresAt: Date;
  grantExpiresAt: Date;
  grantRevokedAt: Date | null;
}

export async function findRefreshToken(sql: Executor, tokenHash: string): Promise<RefreshTokenState | null> {
  const [row] = await sql`
    select t.rotated_at, t.successor_sealed, t.expires_at, g.id as grant_id, g.client_id, g.identity_id, g.session_id,
           g.scope, g.resources, g.auth_time, g.acr, g.amr, g.nonce, g.dpop_jkt, g.expires_at as grant_expires_at,
           g.revoked_at as grant_revoked_at
    from oauth_refresh_tokens t join oauth_grants g on g.id = t.grant_id
    where t.token_hash = ${tokenHash}`;
  if (!row) return null;
  return {
    ...toFacts(row),
    rotatedAt: row.rotated_at as Date | null,
    successorSealed: row.successor_sealed as string | null,
    expiresAt: row.expires_at as Date,
    grantExpiresAt: row.grant_expires_at as Date,
    grantRevokedAt: row.grant_revoked_at as Date | null,
  };
}

export interface RefreshFamily {
  clientId: string;
  dpopJkt: string | null;
  expiresAt: Date;
  revokedAt: Date | null;
  /** The family has a token that was not rotated and has not expired: the one a client would present next. */
  hasLiveToken: boolean;
}

/** The grant a refresh token named, for a token whose own row is gone (refresh-token-value.ts). */
export async function findRefreshFamily(sql: Executor, grantId: string, now: Date): Promise<RefreshFamily | null> {
  const [row] = await sql`
    select g.client_id, g.dpop_jkt, g.expires_at, g.revoked_at,
           exists (select 1 from oauth_refresh_tokens t
                   where t.grant_id = g.id and t.rotated_at is null and t.expires_at > ${now}) as has_live_token
    from oauth_grants g where g.id = ${grantId}`;
  if (!row) return null;
  return {
    clientId: row.client_id as string,
    dpopJkt: row.dpop_jkt as string | null,
    expiresAt: row.expires_at as Date,
    revokedAt: row.revoked_at as Date | null,
    hasLiveToken: row.has_live_token as boolean,
  };
}

export interface AccessTokenRef {
  /** The grant (`gid`) of a user token; null for a client-credentials token. */
  grantId: string | null;
  clientId: string;
  jti: string;
  /** Issued by token exchange (RFC 8693, `act`): its client, the actor, must still exist too. */
  exchanged: boolean;
}

export interface AccessTokenState {
  /** A user token's live grant's identity, or a client-credentials token's existing client; null when gone. */
  subject: string | null;
  /** An exchanged token's client while it exists; null when it is gone or the token was not exchanged. */
  actor: string | null;
  /** Listed as revoked (RFC 7009). */
  revoked: boolean;
}

/**
 * One indexed round trip: what decides whether a signature-valid access token is still live. A user token's grant
 * must exist (deleting its client or identity deletes it) and be unrevoked (code reuse, refresh replay, RFC 7009
 * revocation of the refresh token); a client-credentials token's client must still exist; and the token itself must
 * not be listed as revoked (RFC 7009). A token issued by exchange lives by its grant too, and also only while the
 * client that exchanged for it exists. The facts come back separately so the token state cache can keep each.
 */
export async function findAccessTokenState(sql: Executor, t: AccessTokenRef): Promise<AccessTokenState> {
  const [row] = await sql<{ subject: string | null; actor: string | null; revoked: boolean }[]>`
    select case when ${t.grantId}::text is null
             then (select id from oauth_clients where id = ${t.clientId})
             else (select identity_id from oauth_grants where id = ${t.grantId} and revoked_at is null)
           end as subject,
           case when ${t.exchanged}::boolean then (select id from oauth_clients where id = ${t.clientId}) end as actor,
           exists (select 1 from oauth_revoked_access_tokens where jti = ${t.jti}) as revoked`;
  return { subject: row?.subject ?? null, actor: row?.actor ?? null, revoked: row?.revoked ?? true };
}

export interface UserinfoState {
  /** The identity of the token's grant while the grant is live; null when it is gone or revoked. */
  grantIdentityId: string | null;
  revoked: boolean;
  /** The claims of `sub` while it is active; null otherwise. */
  profile: ClaimsProfile | null;
}

/** Everything userinfo needs about a user access token, in one round trip, as separate facts (see above). */
export async function findUserinfoState(
  sql: Executor,
  t: { sub: string; grantId: string; jti: string },
): Promise<UserinfoState> {
  const [row] = await sql<
    {
      grant_identity_id: string | null;
      revoked: boolean;
      display_name: string | null;
      address: string | null;
      verified_at: Date | null;
    }[]
  >`
    select (select identity_id from oauth_grants where id = ${t.grantId} and revoked_at is null) as grant_identity_id,
           exists (select 1 from oauth_revoked_access_tokens where jti = ${t.jti}) as revoked,
           i.display_name, e.address, e.verified_at
    from (select 1) as one
    left join identities i on i.id = ${t.sub} and i.state = 'active'
    left join emails e on e.identity_id = i.id and e.is_primary`;
  if (!row) return { grantIdentityId: null, revoked: true, profile: null };
  return {
    grantIdentityId: row.grant_identity_id,
    revoked: row.revoked,
    profile:
      row.display_name === null
        ? null
        : { displayName: row.display_name, email: row.address, emailVerified: row.verified_at !== null },
  };
}

export async function insertRevokedAccessToken(sql: Executor, jti: string, expiresAt: Date): Promise<void> {
  await sql`insert into oauth_revoked_access_tokens (jti, expires_at) values (${jti}, ${expiresAt}) on conflict do nothing`;
}

export async function findConsentedScopes(sql: Executor, identityId: string, clientId: string): Promise<string[]> {
  const [row] =
    await sql`select scopes from oauth_consents where identity_id = ${identityId} and client_id = ${clientId}`;
  return (row?.scopes as string[] | undefined) ?? [];
}

/** Adds `scopes` to what the identity has granted the client. */
export async function upsertConsent(sql: Executor, identityId: string, clientId: string, scopes: string[], now: Date) {
  await sql`
    insert into oauth_consents (identity_id, client_id, scopes, updated_at)
    values (${identityId}, ${clientId}, ${scopes}, ${now})
    on conflict (identity_id, client_id) do update
      set scopes = array(select distinct unnest(oauth_consents.scopes || excluded.scopes)), updated_at = ${now}`;
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
  return endedGrants(rows);
}

function endedGrants(rows: readonly Record<string, unknown>[]): EndedGrants {
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
  return endedGrants(rows);
}
