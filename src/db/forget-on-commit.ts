// The node that changes token state forgets its own cached copy as soon as the change commits, instead of waiting
// for the change's NOTIFY to come back over its LISTEN connection, which on a busy machine can arrive after the
// client's next request: a revocation, a sign-out or a suspension then holds on this node at once. Other nodes still
// learn by NOTIFY (docs/decisions.md "Token state cache"). The stores whose changes fire those NOTIFYs (grants,
// revoked access tokens, clients, identities, emails, memberships) call forgetOnCommit with the keys they changed;
// app.ts registers the node's cache for its pool. It lives under db/, beside the transaction queue it uses, because
// the stores of several feature modules call it, and the cache (oauth/token-state-cache.ts) is named here only by
// what forgetting needs.
import { afterCommit } from './after-commit.ts';
import type { Executor, Sql } from './pool.ts';
import { identityKey, memberKey } from './token-state-keys.ts';

/** What this file needs of the node's token state cache. */
export interface ForgettingCache {
  forget(key: string): void;
  forgetAll(): void;
}

const caches = new WeakMap<Sql, Set<ForgettingCache>>();

/** Makes `cache` forget what is committed through `sql` (one per app; tests may run several apps on one pool). */
export function forgetOwnChanges(sql: Sql, cache: ForgettingCache): () => void {
  const registered = caches.get(sql) ?? new Set<ForgettingCache>();
  caches.set(sql, registered.add(cache));
  return () => registered.delete(cache);
}

/** Forgets `keys` (src/db/token-state-keys.ts) on this node once the caller's transaction commits. */
export function forgetOnCommit(executor: Executor, keys: readonly string[]): void {
  if (keys.length === 0) return;
  afterCommit(executor, (pool) => {
    for (const cache of caches.get(pool) ?? []) for (const key of keys) cache.forget(key);
  });
}

/** An identity's cached profile and gateway facts (migrations 0009's and 0030's keys), forgotten on commit. */
export const forgetIdentityOnCommit = (executor: Executor, sub: string) =>
  forgetOnCommit(executor, [identityKey(sub), memberKey(sub)]);

/**
 * Forgets everything this node cached once the caller's transaction commits: for a change that ends more facts than
 * it can cheaply name (a client's deletion takes its grants with it by cascade). Such changes are rare.
 */
export function forgetAllOnCommit(executor: Executor): void {
  afterCommit(executor, (pool) => {
    for (const cache of caches.get(pool) ?? []) cache.forgetAll();
  });
}
