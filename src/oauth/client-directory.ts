// Clients and resource scopes as the protocol endpoints read them: from the database, cached in memory for a few
// seconds. The token, introspection and revocation hot paths then do no database work for the client itself;
// the cost is that an admin change (deletion, new redirect URI, the end of a rotated-out secret) reaches every
// node within CACHE_SECONDS instead of at once. Secrets are still checked on every request (against the cached
// HMAC; a mismatch reloads the client, so a new secret works at once), and unknown ids are never kept, so probing
// cannot fill memory.
import { type Client, findClient, findResourcesByAudience } from '../clients/store.ts';
import type { Sql } from '../db/pool.ts';

export const CACHE_SECONDS = 5;
const MAX_ENTRIES = 10_000;
const MAX_ID = 64;
const CLIENT_ID = /^[A-Za-z0-9_-]+$/;

export interface ClientDirectory {
  findClient(id: string): Promise<Client | null>;
  /** The client as this node keeps it, without a promise; undefined when findClient would have to load it. */
  cachedClient(id: string): Client | undefined;
  /** Reads the client from the database now, and keeps what it read. */
  reloadClient(id: string): Promise<Client | null>;
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
  const reload = (key: string, now: number): Promise<T | null> => {
    const pending = load(key)
      .then((value) => {
        keep(key, value, now);
        return value;
      })
      .finally(() => {
        if (loading.get(key) === pending) loading.delete(key);
      });
    loading.set(key, pending);
    return pending;
  };
  return {
    get(key: string): Promise<T | null> {
      const now = clock().getTime();
      const hit = entries.get(key);
      if (hit && hit.until > now) return Promise.resolve(hit.value);
      return loading.get(key) ?? reload(key, now);
    },
    /** What is kept and still fresh, without a promise; undefined when get() would have to load. */
    peek(key: string): T | undefined {
      const hit = entries.get(key);
      return hit && hit.until > clock().getTime() ? hit.value : undefined;
    },
    /** Skips what is kept and what is loading: for a caller that knows the kept value may be stale. */
    reload: (key: string) => reload(key, clock().getTime()),
  };
}

export function createClientDirectory(deps: { sql: Sql; clock: () => Date }): ClientDirectory {
  const clients = cached(deps.clock, (id) => findClient(deps.sql, id));
  const resources = cached(deps.clock, async (audience) => {
    const [found] = await findResourcesByAudience(deps.sql, [audience]);
    return found ? found.scopes : null;
  });
  // Ids are generated (`cli_` and base64url); anything longer or with other characters, a NUL included, which
  // PostgreSQL would refuse as text, names no client and costs no query.
  const possible = (id: string) => id.length <= MAX_ID && CLIENT_ID.test(id);
  return {
    findClient: (id) => (possible(id) ? clients.get(id) : Promise.resolve(null)),
    cachedClient: (id) => (possible(id) ? clients.peek(id) : undefined),
    reloadClient: (id) => (possible(id) ? clients.reload(id) : Promise.resolve(null)),
    findResourceScopes: (audience) => (audience.length <= 2000 ? resources.get(audience) : Promise.resolve(null)),
  };
}
