// Client secrets: 256-bit random, shown once, stored only as HMAC-SHA256 under the client-secret key (DESIGN.md
// "Security invariants"), so a database read yields nothing usable without the key file.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken, secretKeyObject, sha256 } from '../crypto/primitives.ts';
import { BoundedMap } from './bounded-map.ts';

export const newClientSecret = () => randomToken(32);

export const clientSecretHmac = (key: Buffer, secret: string) =>
  createHmac('sha256', secretKeyObject(key)).update('client-secret:').update(secret).digest('base64url');

/** Clients whose last matching secret a node remembers (one stored HMAC and one digest each). */
const REMEMBERED_SECRETS = 10_000;

// Per client-secret key: stored HMAC → SHA-256 of the secret that last matched it. A confidential client sends its
// secret on every token, introspection and revocation request, and the keyed HMAC (a Hmac object and its key
// set-up, about 3 µs) was the largest single cost of an introspection after the socket write; a one-shot SHA-256
// compared with the remembered digest takes under half of that. Only a digest is kept, never the secret, and the
// entry is keyed by the stored HMAC, so a rotated secret (a new HMAC) never meets an old entry.
const rememberedSecrets = new WeakMap<Buffer, BoundedMap<string, Buffer>>();

function remembered(key: Buffer): BoundedMap<string, Buffer> {
  let found = rememberedSecrets.get(key);
  if (!found) {
    found = new BoundedMap(REMEMBERED_SECRETS);
    rememberedSecrets.set(key, found);
  }
  return found;
}

/**
 * Both HMACs are base64url, 43 characters, so they compare directly in constant time; the generic
 * constantTimeEqual would hash both first to hide a length that is public here.
 */
export function clientSecretMatches(key: Buffer, secret: string, storedHmac: string): boolean {
  const digest = sha256(secret);
  const matched = remembered(key);
  const earlier = matched.get(storedHmac);
  if (earlier) return timingSafeEqual(digest, earlier);
  const presented = Buffer.from(clientSecretHmac(key, secret));
  const stored = Buffer.from(storedHmac);
  const matches = presented.length === stored.length && timingSafeEqual(presented, stored);
  if (matches) matched.set(storedHmac, digest);
  return matches;
}
