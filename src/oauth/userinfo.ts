// OIDC Core §5.3 userinfo: `sub` always, `name` with profile, `email`/`email_verified` with email. The token must
// be a valid user access token carrying `openid`, for an identity that is still active; failures are RFC 6750 §3.1
// errors with WWW-Authenticate. Like any resource server validating a JWT locally, userinfo trusts the token until
// it expires (10 minutes); the revocation-aware check is introspection (DESIGN.md "Access token").
import type { Sql } from '../db/pool.ts';
import type { Sub } from '../identity/ids.ts';
import { findClaimsProfile } from '../identity/store.ts';
import { InsufficientScope, InvalidToken } from './errors.ts';
import type { AccessTokenVerifier } from './tokens.ts';

export async function userinfoClaims(
  deps: { sql: Sql; verify: AccessTokenVerifier },
  token: string,
): Promise<Record<string, unknown>> {
  const claims = await deps.verify(token);
  if (!claims) throw new InvalidToken();
  // Client-credentials tokens carry a client id as sub (RFC 9700 §4.15): there is no user to describe.
  if (!claims.sub.startsWith('usr_') || !claims.gid)
    throw new InvalidToken('The access token was not issued for a user');
  const scopes = claims.scope.split(' ');
  if (!scopes.includes('openid')) throw new InsufficientScope('openid');
  const profile = await findClaimsProfile(deps.sql, claims.sub as Sub);
  if (!profile) throw new InvalidToken();
  const result: Record<string, unknown> = { sub: claims.sub };
  if (scopes.includes('profile')) result.name = profile.displayName;
  if (scopes.includes('email') && profile.email !== null) {
    result.email = profile.email;
    result.email_verified = profile.emailVerified;
  }
  return result;
}
