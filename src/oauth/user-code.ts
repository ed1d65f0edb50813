// The user code of the device authorization grant (RFC 8628 §6.1): eight characters from twenty consonants, shown
// as XXXX-XXXX. No vowels (no words spelled by chance), no digits and none of the letters people confuse with them
// or with each other; 20^8 ≈ 2^34.6 codes, which the guessing throttle (device-code-throttle.ts) and the code's
// short life make enough (§5.1). What people type is normalised: case, dashes and spaces do not matter.
import { randomInt } from 'node:crypto';
import { tokenHash } from '../crypto/primitives.ts';

/** RFC 8628 §6.1's example character set: the consonants without Y, base-20. */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** A fresh user code, as shown: XXXX-XXXX. randomInt draws from the CSPRNG without modulo bias. */
export function newUserCode(): string {
  let code = '';
  for (let i = 0; i < USER_CODE_LENGTH; i++) code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The code as typed, reduced to its eight characters: upper case, dashes and white space removed. Null when what is
 * left cannot be a user code (wrong length or a character outside the alphabet): no lookup, but still a failed
 * attempt for the throttle, since a guesser learns nothing either way.
 */
export function normalizeUserCode(typed: string): string | null {
  // The Unicode hyphens and dashes U+2010 to U+2014 by code point: the release bundle stays ASCII (bundle-app.ts).
  const code = typed.toUpperCase().replace(/[\s\-\u2010-\u2014]/g, '');
  if (code.length !== USER_CODE_LENGTH) return null;
  for (const c of code) if (!USER_CODE_ALPHABET.includes(c)) return null;
  return code;
}

/** What is stored and looked up: the SHA-256 of the normalised code. */
export const userCodeHash = (normalized: string) => tokenHash(`user-code:${normalized}`);

/** The normalised code as people read it. */
export const displayUserCode = (normalized: string) => `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
