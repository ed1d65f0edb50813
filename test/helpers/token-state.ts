// Waiting for the token state cache without sleeping. PostgreSQL delivers notifications to a listener in commit
// order, so once a marker notified now has reached a node's cache, every change committed before it has too.
import { randomUUID } from 'node:crypto';
import type { Sql } from '../../src/db/pool.ts';
import type { TokenStateCache, TokenStateEvent } from '../../src/oauth/token-state-cache.ts';
import { TOKEN_STATE_CHANNEL } from '../../src/oauth/token-state-listener.ts';

/** Resolves at the first event `matches`; subscribe before causing it. */
export function nextTokenStateEvent(
  cache: TokenStateCache,
  matches: (event: TokenStateEvent) => boolean,
): Promise<TokenStateEvent> {
  return new Promise((resolve) => {
    const stop = cache.observe((event) => {
      if (!matches(event)) return;
      stop();
      resolve(event);
    });
  });
}

/** Resolves once every change committed so far has invalidated `node`'s cache (at once when it is not listening). */
export async function tokenStateSynced(node: { sql: Sql; services: { tokenStates: TokenStateCache } }): Promise<void> {
  const cache = node.services.tokenStates;
  if (!cache.listening) return;
  const marker = `sync:${randomUUID()}`;
  const seen = nextTokenStateEvent(cache, (e) => e.type === 'invalidated' && e.key === marker);
  await node.sql`select pg_notify(${TOKEN_STATE_CHANNEL}, ${marker})`;
  await seen;
}
