// Is a signature-valid access token still live, and whose claims does userinfo show: answered from the node's token
// state cache when every fact needed is there and fresh, else from PostgreSQL in one round trip, storing the facts
// that let the token through (docs/decisions.md "Token state cache"). A refusal is never cached.
import type { Sql } from '../db/pool.ts';
import { clientKey, grantKey, identityKey, jtiKey } from '../db/token-state-keys.ts';
import type { ClaimsProfile } from '../identity/store.ts';
import { type AccessTokenRef, findAccessTokenState, findUserinfoState } from './access-token-store.ts';
import type { TokenStateCache } from './token-state-cache.ts';
import type { AccessTokenClaims } from './tokens.ts';

export interface TokenStateDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
}

/** Cached value of a jti that is not revoked. */
const UNREVOKED = true;

const subjectKey = (t: AccessTokenRef) => (t.grantId === null ? clientKey(t.clientId) : grantKey(t.grantId));

/** What decides whether a verified access token is live, read from its claims. */
export const accessTokenRef = (claims: AccessTokenClaims): AccessTokenRef => ({
  grantId: claims.gid ?? null,
  clientId: claims.client_id,
  jti: claims.jti,
  exchanged: claims.act !== undefined,
});

/** True when the node's cache shows the token live; false when only isAccessTokenLive can tell. */
export function isAccessTokenCachedLive(cache: TokenStateCache, t: AccessTokenRef): boolean {
  return (
    cache.get(subjectKey(t)) !== undefined &&
    cache.get(jtiKey(t.jti)) === UNREVOKED &&
    (!t.exchanged || cache.get(clientKey(t.clientId)) !== undefined)
  );
}

export async function isAccessTokenLive(deps: TokenStateDeps, t: AccessTokenRef): Promise<boolean> {
  const cache = deps.tokenStates;
  if (isAccessTokenCachedLive(cache, t)) return true;
  const epoch = cache.beginRead();
  const state = await findAccessTokenState(deps.sql, t);
  if (state.subject !== null) cache.store(epoch, subjectKey(t), state.subject);
  // A client's key holds its id whether it is a client-credentials token's subject or an exchanged token's actor.
  if (state.actor !== null) cache.store(epoch, clientKey(t.clientId), state.actor);
  if (!state.revoked) cache.store(epoch, jtiKey(t.jti), UNREVOKED);
  return state.subject !== null && !state.revoked && (!t.exchanged || state.actor !== null);
}

/**
 * The userinfo claims of a live user access token: null when the grant is gone or revoked, the token is listed as
 * revoked, the grant is not this identity's, or the identity is not active.
 */
export async function findLiveUserinfoProfile(
  deps: TokenStateDeps,
  t: { sub: string; grantId: string; jti: string },
): Promise<ClaimsProfile | null> {
  const cache = deps.tokenStates;
  const owner = cache.get(grantKey(t.grantId));
  const profile = cache.get(identityKey(t.sub)) as ClaimsProfile | undefined;
  if (owner !== undefined && profile !== undefined && cache.get(jtiKey(t.jti)) === UNREVOKED)
    return owner === t.sub ? profile : null;
  const epoch = cache.beginRead();
  const state = await findUserinfoState(deps.sql, t);
  if (state.grantIdentityId !== null) cache.store(epoch, grantKey(t.grantId), state.grantIdentityId);
  if (!state.revoked) cache.store(epoch, jtiKey(t.jti), UNREVOKED);
  if (state.profile !== null) cache.store(epoch, identityKey(t.sub), state.profile);
  return state.grantIdentityId === t.sub && !state.revoked ? state.profile : null;
}
