// Refresh token rotation (DESIGN.md "Refresh token", RFC 9700 §4.14.2): every use rotates; presenting a rotated
// token revokes the whole family, except within the grace window, where an honest parallel retry gets the same
// successor (kept sealed on the rotated row) instead of killing the session. A request the grant cannot satisfy (a
// scope it does not hold) is refused by `accept` before anything is committed: the presented token stays usable.
import { randomToken, tokenHash } from '../crypto/primitives.ts';
import { open, seal } from '../crypto/seal.ts';
import { InvalidGrant, InvalidTarget } from './errors.ts';
import type { GrantDeps } from './grants/types.ts';
import { findRefreshToken, type GrantFacts, revokeGrant, rotateRefreshToken } from './store.ts';

const purpose = (hash: string) => `refresh-successor:${hash}`;

/**
 * Rotates `presented`. `accept`, when given, sees the grant before the rotation commits and throws to refuse the
 * request; the rotation then rolls back. Without it the rotation is one statement and no transaction.
 */
export async function rotateRefresh(
  deps: GrantDeps,
  clientId: string,
  presented: string,
  /** The request's RFC 8707 `resource`: a token is rotated only when its grant names it. Null when none was sent. */
  resource: string | null,
  /** The JWK thumbprint of the request's DPoP proof: a grant bound to a key rotates only for that key. */
  jkt: string | null,
  accept?: (grant: GrantFacts) => void,
): Promise<{ grant: GrantFacts; refreshToken: string }> {
  const now = deps.clock();
  const hash = tokenHash(presented);
  const successor = randomToken();
  const rotation = {
    tokenHash: hash,
    clientId,
    successorHash: tokenHash(successor),
    successorSealed: seal(deps.sealKey, successor, purpose(hash)),
    resource,
    jkt,
    now,
    idleExpiresAt: new Date(now.getTime() + deps.lifetimes.refreshIdleSeconds * 1000),
  };
  const grant = accept
    ? await deps.sql.begin(async (tx) => {
        const rotated = await rotateRefreshToken(tx, rotation);
        if (rotated) accept(rotated);
        return rotated;
      })
    : await rotateRefreshToken(deps.sql, rotation);
  if (grant) return { grant, refreshToken: successor };

  const state = await findRefreshToken(deps.sql, hash);
  if (!state || state.clientId !== clientId) throw new InvalidGrant('The refresh token is invalid');
  if (state.grantRevokedAt !== null) throw new InvalidGrant('The refresh token has been revoked');
  // RFC 9449 §5: a public client's refresh token works only with a proof by the key it was issued to. Nothing changes.
  if (state.dpopJkt !== null && state.dpopJkt !== jkt)
    throw new InvalidGrant('The refresh token is bound to a DPoP key: send a DPoP proof signed with that key');
  // A family past its absolute lifetime is over, grace window or not: nothing more is issued from it.
  if (state.grantExpiresAt <= now) throw new InvalidGrant('The refresh token has expired');
  if (state.rotatedAt !== null) {
    const grace = deps.lifetimes.refreshGraceSeconds;
    const sinceRotation = (now.getTime() - state.rotatedAt.getTime()) / 1000;
    // 0 disables the window (DESIGN.md), even for a retry in the same millisecond.
    if (grace > 0 && sinceRotation <= grace && state.successorSealed !== null) {
      const successor = open(deps.sealKey, state.successorSealed, purpose(hash)).toString('utf8');
      // A retry that lost the race to its own first request; once the successor was itself used, the client has
      // moved on and whoever presents the old token is not that retry (RFC 9700 §4.14.2): revoke below.
      const next = await findRefreshToken(deps.sql, tokenHash(successor));
      if (next && next.rotatedAt === null) {
        accept?.(state);
        return { grant: state, refreshToken: successor };
      }
    }
    if (await revokeGrant(deps.sql, state.grantId, now))
      await deps.audit.record({
        event: 'oauth.grant_revoked',
        actor: clientId,
        subject: state.grantId,
        details: { reason: 'refresh_token_replay' },
      });
    throw new InvalidGrant('The refresh token was already used; its whole token family is revoked');
  }
  // A live token that was not rotated only because the grant does not name the resource: nothing changed.
  if (state.expiresAt > now && resource !== null && !state.resources.includes(resource))
    throw new InvalidTarget('resource was not part of the authorization this refresh token came from');
  throw new InvalidGrant('The refresh token has expired');
}
