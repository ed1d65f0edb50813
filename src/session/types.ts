import type { Sub } from '../identity/ids.ts';

export type Aal = 'aal1' | 'aal2';

export interface Session {
  /** Public handle, `ses_…`: safe to show, used as the OIDC `sid`. Never the cookie value. */
  id: string;
  identityId: Sub;
  aal: Aal;
  /** RFC 8176 authentication method references, e.g. ["pwd", "otp"]. */
  amr: string[];
  authTime: Date;
  enrollmentOnly: boolean;
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
