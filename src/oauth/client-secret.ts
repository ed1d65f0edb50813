// Client secrets: 256-bit random, shown once, stored only as HMAC-SHA256 under the client-secret key (DESIGN.md
// "Security invariants"), so a database read yields nothing usable without the key file.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { constantTimeEqual, randomToken } from '../crypto/primitives.ts';

export const newClientSecret = () => randomToken(32);

// The key as a KeyObject, made once: createHmac with a raw Buffer re-imports the key on every call, which showed
// up in the token endpoint's profile.
const keyObjects = new WeakMap<Buffer, KeyObject>();
function keyObject(key: Buffer): KeyObject {
  let found = keyObjects.get(key);
  if (!found) {
    found = createSecretKey(key);
    keyObjects.set(key, found);
  }
  return found;
}

export const clientSecretHmac = (key: Buffer, secret: string) =>
  createHmac('sha256', keyObject(key)).update('client-secret:').update(secret).digest('base64url');

export function clientSecretMatches(key: Buffer, secret: string, storedHmac: string): boolean {
  return constantTimeEqual(clientSecretHmac(key, secret), storedHmac);
}
