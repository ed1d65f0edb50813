import type { Sub } from '../identity/ids.ts';

export type Aal = 'aal1' | 'aal2';

/**
 * What a partial session still waits for before it can authorize or manage the account (docs/identity.md "Second
 * step"): `enrollment` of a first second factor, or the identity's `second_factor` after a single-factor sign-in.
 */
export type PendingStep = 'enrollment' | 'second_factor';

export interface Session {
  /** Public handle, `ses_…`: safe to show, used as the OIDC `sid`. Never the cookie value. */
  id: string;
  identityId: Sub;
  aal: Aal;
  /** RFC 8176 authentication method references, e.g. ["pwd", "otp"]. */
  amr: string[];
  authTime: Date;
  /** Null for a complete session; otherwise the step it waits for, and it can do nothing else. */
  pending: PendingStep | null;
  createdAt: Date;
  lastSeenAt: Date;
  idleExpiresAt: Date;
  absoluteExpiresAt: Date;
  clientIp: string | null;
  userAgent: string | null;
}

export interface SessionLifetimes {
  idleSeconds: number;
  absoluteSeconds: number;
}
