// TOTP (RFC 6238) with otpauth: SHA-1, 6 digits, 30 s steps, the parameters every authenticator app supports.
// Seeds are sealed with AES-256-GCM under the TOTP key, bound to the identity so a row cannot be moved to another.
import { createRequire } from 'node:module';
import type * as OTPAuth from 'otpauth';
import { open, seal } from '../../crypto/seal.ts';
import type { Sub } from '../../identity/ids.ts';

const PERIOD = 30;
/** ±1 step of clock skew (RFC 6238 §5.2 recommends at most one step back; we also allow one ahead). */
const WINDOW = 1;

// otpauth loads on first use: only TOTP enrollment and verification need it, and an idle server stays about 1 MB
// smaller without it (docs/decisions.md, "Idle RSS"). Its CommonJS build lets these functions stay synchronous.
const require = createRequire(import.meta.url);
let loaded: typeof OTPAuth | null = null;
const otpauth = (): typeof OTPAuth => {
  loaded ??= require('otpauth') as typeof OTPAuth;
  return loaded;
};

const purpose = (identityId: Sub) => `totp-seed:${identityId}`;

export interface NewTotpSeed {
  base32: string;
  sealed: string;
}

export function newTotpSeed(key: Buffer, identityId: Sub): NewTotpSeed {
  // 160 bits, the HMAC-SHA-1 block-appropriate size RFC 4226 §4 recommends.
  const secret = new (otpauth().Secret)({ size: 20 });
  return { base32: secret.base32, sealed: seal(key, secret.base32, purpose(identityId)) };
}

export function openTotpSeed(key: Buffer, identityId: Sub, sealed: string): string {
  return open(key, sealed, purpose(identityId)).toString('utf8');
}

const totp = (base32: string, issuer = 'Gatehouse', label = '') => {
  const { Secret, TOTP } = otpauth();
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(base32) });
};

export function otpauthUri(base32: string, issuer: string, label: string): string {
  return totp(base32, issuer, label).toString();
}

/** The time step the code belongs to, or null. The caller still has to burn the step (single use). */
export function matchTotpStep(base32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const generator = totp(base32);
  const delta = generator.validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  if (delta === null) return null;
  return generator.counter({ timestamp: now.getTime() }) + delta;
}
