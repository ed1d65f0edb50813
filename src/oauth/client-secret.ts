// Client secrets: 256-bit random, shown once, stored only as HMAC-SHA256 under the client-secret key (DESIGN.md
// "Security invariants"), so a database read yields nothing usable without the key file.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomToken, secretKeyObject } from '../crypto/primitives.ts';

export const newClientSecret = () => randomToken(32);

export const clientSecretHmac = (key: Buffer, secret: string) =>
  createHmac('sha256', secretKeyObject(key)).update('client-secret:').update(secret).digest('base64url');

/**
 * Both sides are HMAC-SHA256 in base64url, 43 characters, so they compare directly in constant time; the generic
 * constantTimeEqual would hash both first to hide a length that is public here (two hashes on every introspection).
 */
export function clientSecretMatches(key: Buffer, secret: string, storedHmac: string): boolean {
  const presented = Buffer.from(clientSecretHmac(key, secret));
  const stored = Buffer.from(storedHmac);
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
