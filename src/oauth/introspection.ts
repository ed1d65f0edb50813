// RFC 7662 token introspection for confidential clients. A JWT access token is active when its signature, issuer,
// type and expiry hold, neither it nor its grant was revoked, its grant still exists (a client-credentials token:
// its client still exists), and the caller may see it: the client it was issued to, or a service client provisioned
// for its audience (§4: a token's details are not shown to every client). A refresh token is active when it is the
// live, unrotated token of a live grant and belongs to the asking client. Everything else is {active:false} (§2.2).
import type { Client } from '../admin/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import { findRefreshToken } from './store.ts';
import { isAccessTokenLive } from './token-state.ts';
import type { TokenStateCache } from './token-state-cache.ts';
import type { AccessTokenClaims, AccessTokenVerifier } from './tokens.ts';

const INACTIVE = { active: false } as const;
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export interface IntrospectDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
  verify: AccessTokenVerifier;
  issuer: string;
  clock: () => Date;
}

/** The client a token was issued to, or a service client provisioned for (one of) its audience(s). */
function mayIntrospect(caller: Client, claims: AccessTokenClaims): boolean {
  if (claims.client_id === caller.id) return true;
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  return (
    caller.kind === 'service' && audiences.some((aud) => typeof aud === 'string' && caller.audiences.includes(aud))
  );
}

export async function introspect(deps: IntrospectDeps, caller: Client, token: string) {
  // Refresh tokens are base64url, never dotted; the verifier checks a JWT's full shape (once per token: it caches).
  if (token.includes('.')) {
    const claims = await deps.verify(token);
    if (!claims || !mayIntrospect(caller, claims)) return INACTIVE;
    if (!(await isAccessTokenLive(deps, { grantId: claims.gid ?? null, clientId: claims.client_id, jti: claims.jti })))
      return INACTIVE;
    const { active: _ignored, gid: _grant, ...rest } = claims as typeof claims & { active?: unknown };
    return { ...rest, active: true, token_type: 'Bearer' };
  }
  const state = await findRefreshToken(deps.sql, tokenHash(token));
  const now = deps.clock();
  if (
    !state ||
    state.clientId !== caller.id ||
    state.rotatedAt !== null ||
    state.grantRevokedAt !== null ||
    state.expiresAt <= now ||
    state.grantExpiresAt <= now
  )
    return INACTIVE;
  // No token_type: RFC 7662 §2.2 means an RFC 6749 §7.1 access token type, and a refresh token has none.
  return {
    active: true,
    scope: state.scope,
    client_id: state.clientId,
    sub: state.identityId,
    iss: deps.issuer,
    exp: seconds(state.expiresAt),
  };
}
