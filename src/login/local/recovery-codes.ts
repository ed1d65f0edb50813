// Recovery codes: ten random single-use codes shown once. 50 bits each from a 32-letter alphabet without look-alike
// characters; stored as HMAC-SHA-256 under the recovery-code pepper and bound to the identity.
import { randomInt } from 'node:crypto';
import { hmac } from '../../crypto/primitives.ts';
import type { Sub } from '../../identity/ids.ts';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no i, l, o, 0, 1

export function generateRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Case, spaces and hyphens do not matter when a person types a code back. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

export function recoveryCodeHash(pepper: Buffer, identityId: Sub, code: string): string {
  return hmac(pepper, identityId, '\n', normalizeRecoveryCode(code)).toString('base64url');
}
