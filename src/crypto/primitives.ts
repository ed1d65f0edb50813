// Small, shared building blocks. Everything secret-bearing that is compared goes through timingSafeEqual.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A 256-bit random token, base64url (43 characters): authorization codes, refresh tokens, session ids. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256(input: string | Buffer): Buffer {
  return createHash('sha256').update(input).digest();
}

/** Storage form of a high-entropy token: SHA-256 is enough because the input cannot be guessed. */
export function tokenHash(token: string): string {
  return sha256(token).toString('base64url');
}

export function hmac(key: Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function constantTimeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = typeof a === 'string' ? Buffer.from(a) : a;
  const right = typeof b === 'string' ? Buffer.from(b) : b;
  // Hash first so unequal lengths take the same time and do not leak the length.
  return timingSafeEqual(sha256(left), sha256(right)) && left.length === right.length;
}
