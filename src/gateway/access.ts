// Whether a bearer access token satisfies a route policy (SPEC.md Authentication 8-9, docs/gateway.md "Checks"):
// the token is one of ours and live (the OAuth module's verifier and token state, shared with introspection, so a
// revocation on any node reaches this one through the same NOTIFY-invalidated cache), then audience, scope, roles in
// auth.organization_id and assurance (member-facts.ts, cached the same way). A client-credentials token has no
// person behind it, so it never satisfies a policy that requires roles or an assurance level.
import type { Sql } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { presentedToken } from '../oauth/bearer.ts';
import { checkSenderConstraint, type DpopDeps } from '../oauth/dpop.ts';
import { InsufficientScope, InvalidToken } from '../oauth/errors.ts';
import { accessTokenRef, isAccessTokenCachedLive, isAccessTokenLive } from '../oauth/token-state.ts';
import type { TokenStateCache } from '../oauth/token-state-cache.ts';
import type { AccessTokenClaims, AccessTokenVerifier } from '../oauth/tokens.ts';
import { findActiveMemberFacts } from './member-facts.ts';
import type { RoutePolicy } from './route-table.ts';

export interface AccessDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
  verifier: AccessTokenVerifier;
  organizationId: string;
  /** Proofs of DPoP-bound tokens (RFC 9449 §7) are checked here, the gateway being their resource server. */
  dpop: DpopDeps;
}

/** What the gateway reads of a request to decide: the credentials, and what a DPoP proof must match. */
export interface RequestCredentials {
  method: string;
  /** The request path without the query. */
  path: string;
  authorization: string | undefined;
  dpop: string | string[] | undefined;
}

/** Who the upstream is told made the request (the X-Gatehouse-* headers). */
export interface Principal {
  subject: string;
  clientId: string;
  scope: string;
  /** Roles in auth.organization_id; empty for client-credentials tokens and people who are not members. */
  roles: readonly string[];
}

const NO_ROLES: readonly string[] = Object.freeze([]);

/** A person's token: an identity `sub` and the grant it came from (client-credentials tokens have neither). */
const isUserToken = (claims: AccessTokenClaims) => claims.sub.startsWith('usr_') && claims.gid !== undefined;

/** Verified, unexpired and not revoked, or InvalidToken; from the node's caches alone when they know. */
async function liveClaims(deps: AccessDeps, token: string): Promise<AccessTokenClaims> {
  const claims = deps.verifier.cachedClaims(token) ?? (await deps.verifier.verify(token));
  if (!claims) throw new InvalidToken();
  if (isAccessTokenCachedLive(deps.tokenStates, accessTokenRef(claims))) return claims;
  if (!(await isAccessTokenLive(deps, accessTokenRef(claims)))) throw new InvalidToken();
  return claims;
}

function checkAudience(policy: RoutePolicy, claims: AccessTokenClaims): void {
  if (policy.requiredAudience === null) return;
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if (!audiences.includes(policy.requiredAudience))
    throw new GatehouseError('wrong_audience', `The access token's audience must include ${policy.requiredAudience}`);
}

function checkScope(policy: RoutePolicy, claims: AccessTokenClaims): void {
  // RFC 6750 §3.1: insufficient_scope, with the scope needed in the challenge.
  if (policy.requiredScope !== null && !claims.scope.split(' ').includes(policy.requiredScope))
    throw new InsufficientScope(policy.requiredScope);
}

function checkRoles(policy: RoutePolicy, roles: readonly string[]): void {
  const required = policy.requiredRoles;
  if (required.length === 0) return;
  const held =
    policy.roleMatch === 'all' ? required.every((r) => roles.includes(r)) : required.some((r) => roles.includes(r));
  if (!held)
    throw new GatehouseError(
      'insufficient_role',
      `This route requires ${policy.roleMatch === 'all' ? 'all' : 'one'} of these roles: ${required.join(', ')}`,
    );
}

/** ial: the identity's verified level; aal: the sign-in's, which the access token carries as `acr`. */
function checkAssurance(policy: RoutePolicy, identityAssurance: string, claims: AccessTokenClaims): void {
  const minimum = policy.minimumAssurance;
  if (minimum === null) return;
  const met =
    minimum === 'ial1'
      ? identityAssurance === 'ial1' || identityAssurance === 'ial2'
      : minimum === 'ial2'
        ? identityAssurance === 'ial2'
        : minimum === 'aal1'
          ? claims.acr === 'aal1' || claims.acr === 'aal2'
          : claims.acr === 'aal2';
  if (!met) throw new GatehouseError('insufficient_assurance', `This route requires assurance ${minimum} or higher`);
}

/** An allowed request: who it is forwarded as, and the token it presented (what an exchange starts from). */
export interface Authorized {
  principal: Principal;
  /** The presented access token and its verified, live claims. */
  token: string;
  claims: AccessTokenClaims;
}

/** The principal the request may be forwarded as, or the GatehouseError that refuses it. */
export async function authorizeRequest(
  deps: AccessDeps,
  policy: RoutePolicy,
  request: RequestCredentials,
): Promise<Authorized> {
  const presented = presentedToken(request.authorization);
  const claims = await liveClaims(deps, presented.token);
  await checkSenderConstraint(deps.dpop, claims, presented, request);
  checkAudience(policy, claims);
  checkScope(policy, claims);
  const principal = { subject: claims.sub, clientId: claims.client_id, scope: claims.scope };
  if (!isUserToken(claims)) {
    if (policy.requiredRoles.length > 0)
      throw new GatehouseError('insufficient_role', 'A client-credentials token cannot satisfy a role requirement');
    if (policy.minimumAssurance !== null)
      throw new GatehouseError(
        'insufficient_assurance',
        'A client-credentials token cannot satisfy an assurance requirement',
      );
    return { principal: { ...principal, roles: NO_ROLES }, token: presented.token, claims };
  }
  // From the node's cache, which a change to the identity or its memberships invalidates on every node (NOTIFY).
  const facts = await findActiveMemberFacts(deps, claims.sub as Sub);
  if (!facts) throw new InvalidToken();
  checkRoles(policy, facts.roles);
  checkAssurance(policy, facts.assurance, claims);
  return { principal: { ...principal, roles: facts.roles }, token: presented.token, claims };
}
