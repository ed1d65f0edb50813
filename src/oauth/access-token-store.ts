// The only SQL for what decides whether a signature-valid access token is still live (its grant or client, and the
// RFC 7009 revocation list), and for what userinfo reads with it.

import { forgetOnCommit } from '../db/forget-on-commit.ts';
import type { Executor } from '../db/pool.ts';
import { jtiKey } from '../db/token-state-keys.ts';
import type { ClaimsProfile } from '../identity/store.ts';

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
  forgetOnCommit(sql, [jtiKey(jti)]);
}
