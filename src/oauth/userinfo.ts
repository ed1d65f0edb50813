// OIDC Core §5.3 userinfo: `sub` always, `name` with profile, `email`/`email_verified` with email. The token must
// be a valid user access token carrying `openid`, for an identity that is still active; failures are RFC 6750 §3.1
// errors with WWW-Authenticate. A revoked token is refused at once (its grant revoked or gone, or the token itself
// revoked): the claims query checks that in the same round trip (docs/decisions.md "userinfo refuses revoked
// tokens"), or the token state cache, which every such change invalidates (docs/decisions.md "Token state cache").
// A DPoP-bound token is accepted only under the DPoP scheme with a proof by its key (RFC 9449 §7).
import type { Sql } from '../db/pool.ts';
import { checkSenderConstraint, type DpopDeps, type PresentedToken, type ResourceRequest } from './dpop.ts';
import { InsufficientScope, InvalidToken } from './errors.ts';
import { findLiveUserinfoProfile } from './token-state.ts';
import type { TokenStateCache } from './token-state-cache.ts';
import type { AccessTokenVerifier } from './tokens.ts';

export async function userinfoClaims(
  deps: { sql: Sql; tokenStates: TokenStateCache; verifier: AccessTokenVerifier; dpop: DpopDeps },
  presented: PresentedToken,
  request: ResourceRequest,
): Promise<Record<string, unknown>> {
  const claims = await deps.verifier.verify(presented.token);
  if (!claims) throw new InvalidToken();
  await checkSenderConstraint(deps.dpop, claims, presented, request);
  // Client-credentials tokens carry a client id as sub (RFC 9700 §4.15): there is no user to describe.
  if (!claims.sub.startsWith('usr_') || !claims.gid)
    throw new InvalidToken('The access token was not issued for a user');
  const scopes = claims.scope.split(' ');
  if (!scopes.includes('openid')) throw new InsufficientScope('openid');
  const profile = await findLiveUserinfoProfile(deps, { sub: claims.sub, grantId: claims.gid, jti: claims.jti });
  if (!profile) throw new InvalidToken();
  const result: Record<string, unknown> = { sub: claims.sub };
  // OIDC Core §5.3.2: a claim without a value is left out, not sent empty (a display name may be blank).
  if (scopes.includes('profile') && profile.displayName !== '') result.name = profile.displayName;
  if (scopes.includes('email') && profile.email !== null) {
    result.email = profile.email;
    result.email_verified = profile.emailVerified;
  }
  return result;
}
