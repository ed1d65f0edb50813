// The SQL behind "applications with access to my account" (granted-access.ts): an identity's unrevoked grants with
// when tokens were last issued from them, its remembered consents, and the end of one client's access. Kept apart
// from store.ts, which holds the protocol's hot statements; both write only the OAuth tables.

import { forgetOnCommit } from '../db/forget-on-commit.ts';
import type { Executor } from '../db/pool.ts';
import { grantKey } from '../db/token-state-keys.ts';

export interface UnrevokedGrant {
  grantId: string;
  clientId: string;
  /** The browser session the person authorized it from (its `sid`). */
  sessionId: string;
  scopes: string[];
  createdAt: Date;
  /** When the family ends, whatever happens (refresh absolute lifetime). */
  expiresAt: Date;
  /** When tokens were last issued from it: the code exchange, or its newest refresh. */
  lastIssuedAt: Date;
  /** It holds a refresh token that can still be used (unrotated and unexpired). */
  refreshable: boolean;
}

/** Every unrevoked grant of an identity, oldest first, with the facts that say whether it still gives access. */
export async function listUnrevokedGrants(sql: Executor, identityId: string, now: Date): Promise<UnrevokedGrant[]> {
  // A rotation inserts the successor with the rotation's time, so the newest refresh token row is the last refresh.
  const rows = await sql<
    {
      id: string;
      client_id: string;
      session_id: string;
      scope: string;
      created_at: Date;
      expires_at: Date;
      last_issued_at: Date;
      refreshable: boolean;
    }[]
  >`
    select g.id, g.client_id, g.session_id, g.scope, g.created_at, g.expires_at,
           greatest(g.created_at, (select max(t.created_at) from oauth_refresh_tokens t where t.grant_id = g.id))
             as last_issued_at,
           exists (select 1 from oauth_refresh_tokens t
                   where t.grant_id = g.id and t.rotated_at is null and t.expires_at > ${now}) as refreshable
    from oauth_grants g
    where g.identity_id = ${identityId} and g.revoked_at is null
    order by g.created_at, g.id`;
  return rows.map((r) => ({
    grantId: r.id,
    clientId: r.client_id,
    sessionId: r.session_id,
    scopes: r.scope === '' ? [] : r.scope.split(' '),
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    lastIssuedAt: r.last_issued_at,
    refreshable: r.refreshable,
  }));
}

export interface RememberedConsent {
  clientId: string;
  scopes: string[];
  updatedAt: Date;
}

/** The scopes an identity let each third-party client have without asking again (authorize.ts). */
export async function listConsents(sql: Executor, identityId: string): Promise<RememberedConsent[]> {
  const rows = await sql<{ client_id: string; scopes: string[]; updated_at: Date }[]>`
    select client_id, scopes, updated_at from oauth_consents where identity_id = ${identityId}`;
  return rows.map((r) => ({ clientId: r.client_id, scopes: r.scopes, updatedAt: r.updated_at }));
}

export interface EndedAccess {
  grantsRevoked: number;
  consentRemoved: boolean;
  codesDiscarded: number;
}

/**
 * Ends everything a client holds for an identity, on the caller's transaction: unused live authorization codes, every
 * unrevoked grant (their refresh tokens stop rotating; the grant triggers of migration 0009 tell every node's token
 * state cache, so access tokens stop introspecting and userinfo refuses them) and the remembered consent.
 *
 * The codes go first, in their own statement: an exchange racing this one holds its code's row, so the DELETE waits
 * for it, and the grants UPDATE that follows, a new statement with a new snapshot, then sees the grant the exchange
 * created. An exchange that comes second finds no code. One statement with CTEs would miss that grant.
 */
export async function endClientAccess(
  tx: Executor,
  identityId: string,
  clientId: string,
  now: Date,
): Promise<EndedAccess> {
  const codes = await tx`
    delete from oauth_authorization_codes
    where identity_id = ${identityId} and client_id = ${clientId} and used_at is null and expires_at > ${now}
    returning code_hash`;
  const grants = await tx`
    update oauth_grants set revoked_at = ${now}
    where identity_id = ${identityId} and client_id = ${clientId} and revoked_at is null
    returning id`;
  forgetOnCommit(
    tx,
    grants.map((row) => grantKey(row.id as string)),
  );
  const consents = await tx`
    delete from oauth_consents where identity_id = ${identityId} and client_id = ${clientId} returning client_id`;
  return { grantsRevoked: grants.length, consentRemoved: consents.length > 0, codesDiscarded: codes.length };
}
