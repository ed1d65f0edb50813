// RFC 7009 revocation. Revoking a refresh token revokes its whole grant, access tokens included (§2.1); revoking an
// access token lists its jti until it would expire. Unknown, foreign or invalid tokens change nothing, and the
// answer is the same 200 either way (§2.2), so the endpoint reveals nothing about tokens it did not issue to you.

import type { Audit } from '../audit/audit.ts';
import type { Client } from '../clients/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { Executor, Sql } from '../db/pool.ts';
import {
  findRefreshToken,
  insertRevokedAccessToken,
  revokeGrant,
  revokeIdentityGrants,
  revokeSessionGrants,
} from './store.ts';
import { type AccessTokenVerifier, looksLikeJwt } from './tokens.ts';

export interface RevokeDeps {
  sql: Sql;
  verifier: AccessTokenVerifier;
  clock: () => Date;
  audit: Audit;
}

export async function revokeToken(deps: RevokeDeps, caller: Client, token: string): Promise<void> {
  if (looksLikeJwt(token)) {
    const claims = await deps.verifier.verify(token);
    if (claims && claims.client_id === caller.id)
      await insertRevokedAccessToken(deps.sql, claims.jti, new Date(claims.exp * 1000));
    return;
  }
  const state = await findRefreshToken(deps.sql, tokenHash(token));
  if (!state || state.clientId !== caller.id) return;
  if (await revokeGrant(deps.sql, state.grantId, deps.clock()))
    await deps.audit.record({
      event: 'oauth.grant_revoked',
      actor: caller.id,
      subject: state.grantId,
      details: { reason: 'revocation' },
    });
}

/**
 * Ends an identity's grants, and with them their refresh tokens and (through introspection) access tokens: what
 * account changes that end browser sessions (password reset, TOTP removal, "sign out other sessions") must also do,
 * or an application would stay signed in as before. `keepSessionId` spares the grants issued from the caller's own
 * session. Runs on the caller's transaction; returns how many grants ended.
 */
export async function revokeGrantsOfIdentity(
  sql: Executor,
  identityId: string,
  now: Date,
  keepSessionId: string | null = null,
): Promise<number> {
  return revokeIdentityGrants(sql, identityId, now, keepSessionId);
}

/** Ends the grants issued from one session of an identity (the person ended that session), on the caller's executor. */
export async function revokeGrantsOfSession(
  sql: Executor,
  identityId: string,
  sessionId: string,
  now: Date,
): Promise<number> {
  return revokeSessionGrants(sql, identityId, sessionId, now);
}
