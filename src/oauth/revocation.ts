// RFC 7009 revocation. Revoking a refresh token revokes its whole grant, access tokens included (§2.1); revoking an
// access token lists its jti until it would expire. A token of ours issued to another client is refused with
// unauthorized_client and changes nothing (§2.1: "the request is refused and the client is informed of the error");
// unknown and invalid tokens change nothing and answer 200 (§2.2). docs/decisions.md says why.

import type { Audit } from '../audit/audit.ts';
import type { Client } from '../clients/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { Executor, Sql } from '../db/pool.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import { insertRevokedAccessToken } from './access-token-store.ts';
import { queueLogoutTokens } from './backchannel-logout.ts';
import { UnauthorizedClient } from './errors.ts';
import { recordGrantRevoked } from './grant-revoked-audit.ts';
import { revokeGrant, revokeIdentityGrants, revokeSessionGrants } from './grant-store.ts';
import { findRefreshFamily, findRefreshToken } from './refresh-token-store.ts';
import { grantNamedBy } from './refresh-token-value.ts';
import { type AccessTokenVerifier, looksLikeJwt } from './tokens.ts';

export interface RevokeDeps {
  sql: Sql;
  verifier: AccessTokenVerifier;
  clock: () => Date;
  audit: Audit;
  /** The signing secret, which MACs refresh token values (refresh-token-value.ts). */
  refreshKey: Buffer;
}

/**
 * Refuses a token of ours that another client holds, leaving it as it was. A client holding another's token is worth
 * an operator's look (a leak, or a confused deployment), so the refusal is audited; the token itself never is.
 */
async function refuseForeignToken(
  deps: RevokeDeps,
  caller: Client,
  context: AttemptContext,
  token: { type: 'access_token' | 'refresh_token'; clientId: string; grantId: string | null },
): Promise<never> {
  await deps.audit.record({
    event: 'oauth.revocation_refused',
    actor: caller.id,
    subject: token.grantId,
    ...context,
    details: { token_type: token.type, token_client_id: token.clientId },
  });
  throw new UnauthorizedClient('The token was issued to another client; only that client may revoke it');
}

/**
 * The grant a refresh token belongs to and its client. Revoking any token of a family ends the family, a rotated one
 * too; a rotated token whose row is gone still names its grant (refresh-token-value.ts).
 */
async function refreshTokenFamily(
  deps: RevokeDeps,
  token: string,
): Promise<{ grantId: string; clientId: string } | null> {
  const state = await findRefreshToken(deps.sql, tokenHash(token));
  if (state) return state;
  const grantId = grantNamedBy(deps.refreshKey, token);
  if (grantId === null) return null;
  const family = await findRefreshFamily(deps.sql, grantId, deps.clock());
  return family && { grantId, clientId: family.clientId };
}

export async function revokeToken(
  deps: RevokeDeps,
  caller: Client,
  token: string,
  context: AttemptContext,
): Promise<void> {
  if (looksLikeJwt(token)) {
    const claims = await deps.verifier.verify(token);
    if (!claims) return;
    if (claims.client_id !== caller.id)
      await refuseForeignToken(deps, caller, context, {
        type: 'access_token',
        clientId: claims.client_id,
        grantId: claims.gid ?? null,
      });
    await insertRevokedAccessToken(deps.sql, claims.jti, new Date(claims.exp * 1000));
    return;
  }
  const family = await refreshTokenFamily(deps, token);
  if (!family) return;
  if (family.clientId !== caller.id)
    await refuseForeignToken(deps, caller, context, {
      type: 'refresh_token',
      clientId: family.clientId,
      grantId: family.grantId,
    });
  if (await revokeGrant(deps.sql, family.grantId, deps.clock()))
    await recordGrantRevoked(
      deps.audit,
      { clientId: caller.id, grantId: family.grantId, reason: 'revocation' },
      context,
    );
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
  const ended = await revokeIdentityGrants(sql, identityId, now, keepSessionId);
  await queueLogoutTokens(sql, ended.notices, now);
  return ended.count;
}

/** Ends the grants issued from one session of an identity (the person ended that session), on the caller's executor. */
export async function revokeGrantsOfSession(
  sql: Executor,
  identityId: string,
  sessionId: string,
  now: Date,
): Promise<number> {
  const ended = await revokeSessionGrants(sql, identityId, sessionId, now);
  await queueLogoutTokens(sql, ended.notices, now);
  return ended.count;
}
