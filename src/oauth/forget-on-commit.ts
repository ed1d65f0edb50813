// The node that changes token state forgets its own cached copy as soon as the change commits, instead of waiting
// for the change's NOTIFY to come back over its LISTEN connection, which on a busy machine can arrive after the
// client's next request: a revocation, a sign-out or a suspension then holds on this node at once. Other nodes still
// learn by NOTIFY (docs/decisions.md "Token state cache"). The stores that revoke call forgetOnCommit with the keys
// they changed; app.ts registers the node's cache for its pool.
import { afterCommit } from '../db/after-commit.ts';
import type { Executor, Sql } from '../db/pool.ts';
import type { TokenStateCache } from './token-state-cache.ts';

const caches = new WeakMap<Sql, Set<TokenStateCache>>();

/** Makes `cache` forget what is committed through `sql` (one per app; tests may run several apps on one pool). */
export function forgetOwnChanges(sql: Sql, cache: TokenStateCache): () => void {
  const registered = caches.get(sql) ?? new Set<TokenStateCache>();
  caches.set(sql, registered.add(cache));
  return () => registered.delete(cache);
}

/** Forgets `keys` (migration 0009's NOTIFY payloads) on this node once the caller's transaction commits. */
export function forgetOnCommit(executor: Executor, keys: readonly string[]): void {
  if (keys.length === 0) return;
  afterCommit(executor, (pool) => {
    for (const cache of caches.get(pool) ?? []) for (const key of keys) cache.forget(key);
  });
}
