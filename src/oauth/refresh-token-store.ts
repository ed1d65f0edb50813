// The only SQL for refresh tokens. A token is rotated, its successor stored and the family's spent tokens deleted in
// one statement, so of two concurrent refreshes exactly one wins on every node.
import type { Executor } from '../db/pool.ts';
import { type GrantFacts, grantFactsOf } from './grant-store.ts';

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
  return row ? grantFactsOf(row) : null;
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
    ...grantFactsOf(row),
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
