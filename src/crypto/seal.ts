// AES-256-GCM sealing for secrets at rest that must be read back (TOTP seeds, provider credentials).
// Format: v1.<iv>.<ciphertext+tag>, base64url. The purpose is bound as additional data so a value sealed for
// one purpose (say one identity's TOTP seed) cannot be swapped into another row.
import { createCipheriv, createDecipheriv, type KeyObject } from 'node:crypto';
import { secretKeyObject, secureRandomBytes } from './primitives.ts';

// The AES-256 key is the first 32 bytes of the secret, as a KeyObject made once per secret (see secretKeyObject).
const aesKeys = new WeakMap<Buffer, KeyObject>();
function aesKey(key: Buffer): KeyObject {
  let found = aesKeys.get(key);
  if (!found) {
    found = secretKeyObject(key.subarray(0, 32));
    aesKeys.set(key, found);
  }
  return found;
}

export function seal(key: Buffer, plaintext: string | Buffer, purpose: string): string {
  const iv = secureRandomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(key), iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `v1.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export function open(key: Buffer, sealed: string, purpose: string): Buffer {
  const [version, ivText, bodyText] = sealed.split('.');
  if (version !== 'v1' || !ivText || !bodyText) throw new Error('Unknown sealed value format');
  const body = Buffer.from(bodyText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', aesKey(key), Buffer.from(ivText, 'base64url'));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
}
