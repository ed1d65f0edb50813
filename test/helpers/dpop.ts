// DPoP proofs made by hand (jose), so a test can get one claim wrong (RFC 9449 §4.2).
import { createHash, randomUUID } from 'node:crypto';
import { beforeEach } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export const DPOP_ALGS = 'ES256 EdDSA RS256 PS256';

export const dpopKeys = (): Promise<KeyPair> => generateKeyPair('ES256', { extractable: true });

export async function proof(keys: KeyPair, claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const jwk = await exportJWK(keys.publicKey);
  return new SignJWT({ jti: randomUUID(), iat: Math.floor(Date.now() / 1000), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header })
    .sign(keys.privateKey);
}

/** RFC 9449 §4.2 `ath`: base64url SHA-256 of the access token. */
export const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

/**
 * Proofs and assertions from real clients carry the real time; a suite whose app clock stands still while other
 * suites run would see them as issued in the future. Each test starts with the app clock set to now.
 */
export function followRealTime(clock: { now(): Date; advance(seconds: number): void }): void {
  beforeEach(() => catchUpWithRealTime(clock));
}

/** Sets a clock that fell behind to now: for a proof made while a suite is set up, before any test starts. */
export function catchUpWithRealTime(clock: { now(): Date; advance(seconds: number): void }): void {
  const behind = (Date.now() - clock.now().getTime()) / 1000;
  if (behind > 0) clock.advance(behind);
}
