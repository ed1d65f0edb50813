// RFC 7662 token introspection for confidential clients. A JWT access token is active when its signature, issuer,
// type and expiry hold and neither it nor its grant was revoked; a refresh token when it is the live, unrotated
// token of a live grant and belongs to the asking client. Everything else is just {active:false} (§2.2).
import type { Client } from '../admin/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import { findRefreshToken, isAccessTokenRevoked } from './store.ts';
import { type AccessTokenVerifier, looksLikeJwt } from './tokens.ts';

const INACTIVE = { active: false } as const;
const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export interface IntrospectDeps {
  sql: Sql;
  verify: AccessTokenVerifier;
  issuer: string;
  clock: () => Date;
}

export async function introspect(deps: IntrospectDeps, caller: Client, token: string) {
  if (looksLikeJwt(token)) {
    const claims = await deps.verify(token);
    if (!claims || (await isAccessTokenRevoked(deps.sql, claims.gid ?? null, claims.jti))) return INACTIVE;
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
  return {
    active: true,
    token_type: 'refresh_token',
    scope: state.scope,
    client_id: state.clientId,
    sub: state.identityId,
    iss: deps.issuer,
    exp: seconds(state.expiresAt),
  };
}
