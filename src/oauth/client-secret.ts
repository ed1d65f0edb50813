// Client secrets: 256-bit random, shown once, stored only as HMAC-SHA256 under the client-secret key (DESIGN.md
// "Security invariants"), so a database read yields nothing usable without the key file.
import { createHmac } from 'node:crypto';
import { constantTimeEqual, randomToken, secretKeyObject } from '../crypto/primitives.ts';

export const newClientSecret = () => randomToken(32);

export const clientSecretHmac = (key: Buffer, secret: string) =>
  createHmac('sha256', secretKeyObject(key)).update('client-secret:').update(secret).digest('base64url');

export function clientSecretMatches(key: Buffer, secret: string, storedHmac: string): boolean {
  return constantTimeEqual(clientSecretHmac(key, secret), storedHmac);
}
