import { randomBytes } from 'node:crypto';

/** An identity's OIDC `sub`. Branded so it cannot be mixed up with a client id. */
export type Sub = string & { readonly __brand: 'Sub' };

export function newSub(): Sub {
  return `usr_${randomBytes(16).toString('base64url')}` as Sub;
}

export function normalizeEmail(address: string): string {
  return address.trim().toLowerCase();
}
