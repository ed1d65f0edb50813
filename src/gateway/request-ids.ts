// Request ids for the gateway's raw data path (front.ts): the same 16 base64url characters as newRequestId
// (http/plugin.ts), from a counter under a random per-process prefix rather than 12 random bytes a request. Ids stay
// unique across workers and nodes (the prefix has 60 random bits) at the cost of an increment.
import { secureRandomBytes } from '../crypto/primitives.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const COUNTER_DIGITS = 6;
const WRAP = 64 ** COUNTER_DIGITS;

export function requestIdSource(): () => string {
  let prefix = '';
  let counter = WRAP;
  return () => {
    // A new prefix when the counter would repeat (after 68 billion ids), and for the first id.
    if (counter >= WRAP) {
      prefix = secureRandomBytes(8)
        .toString('base64url')
        .slice(0, 16 - COUNTER_DIGITS);
      counter = 0;
    }
    let n = counter;
    counter += 1;
    let digits = '';
    for (let i = 0; i < COUNTER_DIGITS; i += 1) {
      digits = ALPHABET[n % 64] + digits;
      n = Math.floor(n / 64);
    }
    return prefix + digits;
  };
}
