// The public keys a private_key_jwt client registered (RFC 7591 §2): inline `jwks`, or fetched from its `jwks_uri`
// with a timeout and a size limit and kept for a while (jose's remote key set: refetched after CACHE_MAX_AGE, or
// sooner when an assertion names a key it does not hold, at most once per COOLDOWN). One key set per client and
// registration: a changed registration (new keys or URI) gets a new one.
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import type { Client } from '../clients/store.ts';
import { BoundedMap } from './bounded-map.ts';
import { jose } from './jose-library.ts';

const FETCH_TIMEOUT_MS = 5_000;
const CACHE_MAX_AGE_MS = 10 * 60_000;
const COOLDOWN_MS = 30_000;
/** A JWKS is a few keys; anything much larger is not one, and is not read into memory. */
export const MAX_JWKS_BYTES = 64 * 1024;

/** fetch, reading at most MAX_JWKS_BYTES of the body; redirects are not followed (a JWKS URL is registered exactly). */
async function limitedFetch(url: string, options: RequestInit): Promise<Response> {
  const response = await fetch(url, { ...options, redirect: 'manual' });
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new Error(`the JWKS at ${url} is larger than ${MAX_JWKS_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return new Response(Buffer.concat(chunks), { status: response.status, headers: response.headers });
}

export interface ClientKeys {
  keySet(client: Client): JWTVerifyGetKey | null;
}

export function createClientKeys(): ClientKeys {
  const sets = new BoundedMap<string, { source: string; keys: JWTVerifyGetKey }>(1_000);
  return {
    keySet(client) {
      const source = client.jwksUri ?? (client.jwks ? JSON.stringify(client.jwks) : null);
      if (source === null) return null;
      const known = sets.get(client.id);
      if (known?.source === source) return known.keys;
      const { createLocalJWKSet, createRemoteJWKSet, customFetch } = jose();
      const keys = client.jwksUri
        ? createRemoteJWKSet(new URL(client.jwksUri), {
            timeoutDuration: FETCH_TIMEOUT_MS,
            cacheMaxAge: CACHE_MAX_AGE_MS,
            cooldownDuration: COOLDOWN_MS,
            [customFetch]: limitedFetch,
          })
        : createLocalJWKSet(client.jwks as JSONWebKeySet);
      sets.set(client.id, { source, keys });
      return keys;
    },
  };
}
