// What a route policy reads about a person besides the token: that the identity is active, its IAL, and its roles in
// auth.organization_id. Cached in the node's token state cache under `member:<sub>`, the key migration 0030's
// triggers notify on every change to the identity row or a membership of it, so the cache answers the hot path and a
// role taken away in the console is refused on the next request once the notification arrives, on every node
// (docs/decisions.md "The gateway caches roles and IAL"). As for tokens, a refusal is never cached: an identity that
// is not active is read again each time.
import type { Sql } from '../db/pool.ts';
import { memberKey } from '../db/token-state-keys.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentity, findMembershipRoles, type IdentityAssurance } from '../identity/store.ts';
import type { TokenStateCache } from '../oauth/token-state-cache.ts';

export interface MemberFacts {
  assurance: IdentityAssurance;
  /** Empty when the person is not a member of the organization. */
  roles: readonly string[];
}

export interface MemberFactsDeps {
  sql: Sql;
  tokenStates: TokenStateCache;
  organizationId: string;
}

const NO_ROLES: readonly string[] = Object.freeze([]);

/** The facts of an active identity, from the node's cache when it holds them; null when the identity is not active. */
export async function findActiveMemberFacts(deps: MemberFactsDeps, sub: Sub): Promise<MemberFacts | null> {
  const key = memberKey(sub);
  const cached = deps.tokenStates.get(key) as MemberFacts | undefined;
  if (cached) return cached;
  // Taken before the reads: a change committed while they run bumps the epoch, and what they saw is not stored.
  const epoch = deps.tokenStates.beginRead();
  const [identity, roles] = await Promise.all([
    findIdentity(deps.sql, sub),
    findMembershipRoles(deps.sql, deps.organizationId, sub),
  ]);
  if (identity?.state !== 'active') return null;
  const facts: MemberFacts = {
    assurance: identity.assurance,
    roles: roles ? Object.freeze([...roles]) : NO_ROLES,
  };
  deps.tokenStates.store(epoch, key, facts);
  return facts;
}
