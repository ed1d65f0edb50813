// Refresh token rotation (DESIGN.md "Refresh token", RFC 9700 §4.14.2): every use rotates; presenting a rotated
// token revokes the whole family, except within the grace window, where an honest parallel retry gets the same
// successor (kept sealed on the rotated row) instead of killing the session. A request the grant cannot satisfy (a
// scope it does not hold) is refused by `accept` before anything is committed: the presented token stays usable.
// Rotated rows are deleted at a later rotation once their grace window and CLOCK_SKEW_SECONDS are over; a token
// whose row is gone is still known by the grant its value names (refresh-token-value.ts).
import { tokenHash } from '../crypto/primitives.ts';
import { open, seal } from '../crypto/seal.ts';
import { InvalidGrant, InvalidTarget } from './errors.ts';
import { recordGrantRevoked } from './grant-revoked-audit.ts';
import { type GrantFacts, revokeGrant } from './grant-store.ts';
import type { GrantDeps } from './grants/types.ts';
import { findRefreshFamily, findRefreshToken, type Rotation, rotateRefreshToken } from './refresh-token-store.ts';
import { grantNamedBy, newRefreshToken } from './refresh-token-value.ts';

const purpose = (hash: string) => `refresh-successor:${hash}`;

/**
 * A rotated row stays this long past the grace window. Nodes' clocks differ by a little: a row deleted by a node
 * whose clock runs ahead would turn an honest retry, still inside its window on another node, into a replay.
 */
const CLOCK_SKEW_SECONDS = 60;

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
  const named = grantNamedBy(deps.sealKey, presented);
  // The successor names the grant. A token that does not name it (the earlier format, or a MAC made under a signing
  // secret since replaced) is found by its row first; an unknown one is refused like any other.
  const grantId = named ?? (await findRefreshToken(deps.sql, hash))?.grantId ?? null;
  if (grantId === null) throw new InvalidGrant('The refresh token is invalid');
  const grace = deps.lifetimes.refreshGraceSeconds;
  const successor = newRefreshToken(deps.sealKey, grantId);
  const rotation = {
    tokenHash: hash,
    grantId,
    clientId,
    successorHash: successor.hash,
    successorSealed: seal(deps.sealKey, successor.value, purpose(hash)),
    resource,
    jkt,
    now,
    idleExpiresAt: new Date(now.getTime() + deps.lifetimes.refreshIdleSeconds * 1000),
    spentBefore: new Date(now.getTime() - (grace + CLOCK_SKEW_SECONDS) * 1000),
  };
  const grant = await rotate(deps, rotation, accept);
  if (grant) return { grant, refreshToken: successor.value };

  // Not rotated: why, from the token's row as it is now (another request may have rotated it meanwhile).
  const state = await findRefreshToken(deps.sql, hash);
  if (!state) {
    if (named === null) throw new InvalidGrant('The refresh token is invalid');
    return refuseSpentToken(deps, clientId, named, jkt);
  }
  if (state.clientId !== clientId || (named !== null && named !== state.grantId))
    throw new InvalidGrant('The refresh token is invalid');
  if (state.grantRevokedAt !== null) throw new InvalidGrant('The refresh token has been revoked');
  // RFC 9449 §5: a public client's refresh token works only with a proof by the key it was issued to. Nothing changes.
  if (state.dpopJkt !== null && state.dpopJkt !== jkt)
    throw new InvalidGrant('The refresh token is bound to a DPoP key: send a DPoP proof signed with that key');
  // A family past its absolute lifetime is over, grace window or not: nothing more is issued from it.
  if (state.grantExpiresAt <= now) throw new InvalidGrant('The refresh token has expired');
  if (state.rotatedAt !== null) {
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
    return revokeReplayedFamily(deps, clientId, state.grantId);
  }
  // A live token that was not rotated only because the grant does not name the resource: nothing changed.
  if (state.expiresAt > now && resource !== null && !state.resources.includes(resource))
    throw new InvalidTarget('resource was not part of the authorization this refresh token came from');
  throw new InvalidGrant('The refresh token has expired');
}

async function revokeReplayedFamily(deps: GrantDeps, clientId: string, grantId: string): Promise<never> {
  if (await revokeGrant(deps.sql, grantId, deps.clock()))
    await recordGrantRevoked(deps.audit, { clientId, grantId, reason: 'refresh_token_replay' });
  throw new InvalidGrant('The refresh token was already used; its whole token family is revoked');
}

/**
 * A token the server made (its MAC says so) whose row is gone. While its family still has a live token, this one is
 * taken to be an earlier token of the family, rotated and deleted since: a replay, refused as one whose row remained.
 * (After a restore that lost a rotation it may be the newer one; revoking then ends a family the client has already
 * left behind, docs/decisions.md.)
 * Otherwise the family ended and its rows went with retention: refused without a change.
 */
async function refuseSpentToken(deps: GrantDeps, clientId: string, grantId: string, jkt: string | null) {
  const family = await findRefreshFamily(deps.sql, grantId, deps.clock());
  if (!family || family.clientId !== clientId) throw new InvalidGrant('The refresh token is invalid');
  if (family.revokedAt !== null) throw new InvalidGrant('The refresh token has been revoked');
  if (family.dpopJkt !== null && family.dpopJkt !== jkt)
    throw new InvalidGrant('The refresh token is bound to a DPoP key: send a DPoP proof signed with that key');
  if (family.expiresAt <= deps.clock() || !family.hasLiveToken) throw new InvalidGrant('The refresh token has expired');
  return revokeReplayedFamily(deps, clientId, grantId);
}

/** The rotation, in a transaction with `accept` when there is one; one statement and no transaction otherwise. */
function rotate(deps: GrantDeps, rotation: Rotation, accept?: (grant: GrantFacts) => void) {
  if (!accept) return rotateRefreshToken(deps.sql, rotation);
  return deps.sql.begin(async (tx) => {
    const rotated = await rotateRefreshToken(tx, rotation);
    if (rotated) accept(rotated);
    return rotated;
  });
}
