// The only SQL for authorization codes. A code is consumed and its grant (and refresh token) created in one
// DELETE…RETURNING with CTEs, so of two concurrent exchanges exactly one wins on every node.
import type { Executor } from '../db/pool.ts';
import { type GrantFacts, grantFactsOf } from './grant-store.ts';

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
    ...grantFactsOf({ ...row, grant_id: e.grantId, dpop_jkt: e.dpopJkt }),
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
