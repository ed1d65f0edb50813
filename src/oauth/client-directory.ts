// Clients and resource scopes as the protocol endpoints read them: from the database, cached in memory for a few
// seconds. The token, introspection and revocation hot paths then do no database work for the client itself;
// the cost is that an admin change (secret rotation, deletion, new redirect URI) reaches every node within
// CACHE_SECONDS instead of at once. Secrets are still checked on every request (against the cached HMAC), and
// unknown ids are never kept, so probing cannot fill memory.
import { type Client, findClient, findResourcesByAudience } from '../admin/store.ts';
import type { Sql } from '../db/pool.ts';

export const CACHE_SECONDS = 5;
const MAX_ENTRIES = 10_000;
const MAX_ID = 64;

export interface ClientDirectory {
  findClient(id: string): Promise<Client | null>;
  /** The scopes a registered resource defines, or null when no resource has this audience. */
  findResourceScopes(audience: string): Promise<string[] | null>;
}

/**
 * A read-through cache of `load` by key. Concurrent misses of one key share one load, so a cold start or an expiry
 * under load costs one query, not one per request waiting. A failed load is not kept: the next request tries again.
 */
export function cached<T>(clock: () => Date, load: (key: string) => Promise<T | null>) {
  const entries = new Map<string, { value: T; until: number }>();
  const loading = new Map<string, Promise<T | null>>();
  const keep = (key: string, value: T | null, readAt: number) => {
    entries.delete(key);
    if (value === null) return;
    if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
    // Counted from before the read, so nothing is served longer than CACHE_SECONDS after the database said it.
    entries.set(key, { value, until: readAt + CACHE_SECONDS * 1000 });
  };
  return (key: string): Promise<T | null> => {
    const now = clock().getTime();
    const hit = entries.get(key);
    if (hit && hit.until > now) return Promise.resolve(hit.value);
    let pending = loading.get(key);
    if (!pending) {
      pending = load(key)
        .then((value) => {
          keep(key, value, now);
          return value;
        })
        .finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  };
}

export function createClientDirectory(deps: { sql: Sql; clock: () => Date }): ClientDirectory {
  const clients = cached(deps.clock, (id) => findClient(deps.sql, id));
  const resources = cached(deps.clock, async (audience) => {
    const [found] = await findResourcesByAudience(deps.sql, [audience]);
    return found ? found.scopes : null;
  });
  return {
    findClient: (id) => (id.length <= MAX_ID ? clients(id) : Promise.resolve(null)),
    findResourceScopes: (audience) => (audience.length <= 2000 ? resources(audience) : Promise.resolve(null)),
  };
}
