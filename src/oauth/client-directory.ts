// Clients and resource scopes as the protocol endpoints read them: from the database, cached in memory for a few
// seconds. The token, introspection and revocation hot paths then do no database work for the client itself;
// the cost is that an admin change (secret rotation, deletion, new redirect URI) reaches every node within
// CACHE_SECONDS instead of at once. Secrets are still checked on every request (against the cached HMAC), and
// unknown ids are never cached, so probing cannot fill memory.
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

function cached<T>(clock: () => Date, load: (key: string) => Promise<T | null>) {
  const entries = new Map<string, { value: T; until: number }>();
  return async (key: string): Promise<T | null> => {
    const now = clock().getTime();
    const hit = entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const value = await load(key);
    entries.delete(key);
    if (value !== null) {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      entries.set(key, { value, until: now + CACHE_SECONDS * 1000 });
    }
    return value;
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
