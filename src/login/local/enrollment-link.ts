// One-time owner enrollment links (issue 3 "Owner bootstrap"): setup, the development start and
// `gatehouse owner enroll-link` print `{issuer}/enroll#token=…`. The token is 256 random bits, stored as SHA-256,
// good for 24 hours and one use; issuing a new link kills the older ones. It rides in the fragment, like the
// verification links' secrets: browsers never send a fragment, so it stays out of access logs and Referer.
import { randomToken, tokenHash } from '../../crypto/primitives.ts';
import type { Executor } from '../../db/pool.ts';
import { normalizeEmail, type Sub } from '../../identity/ids.ts';
import { listSignInMethods } from '../../identity/store.ts';
import { replaceEnrollmentToken } from './credential-store.ts';

export const ENROLLMENT_LINK_SECONDS = 24 * 3600;

export interface EnrollmentLinkOptions {
  /** How long the link works; 24 hours unless said otherwise. */
  lifetimeSeconds?: number;
  /** Local path the enrollment page opens when done (the owner's default is the console). */
  returnTo?: string;
  /** The address the link is emailed to: enrolling through it then proves that mailbox (enrollment.ts). */
  mailedTo?: string;
}

export async function issueEnrollmentLink(
  sql: Executor,
  identityId: Sub,
  issuer: string,
  now: Date = new Date(),
  options: EnrollmentLinkOptions = {},
): Promise<{ url: string; expiresAt: Date }> {
  const token = randomToken();
  const expiresAt = new Date(now.getTime() + (options.lifetimeSeconds ?? ENROLLMENT_LINK_SECONDS) * 1000);
  const mailedTo = options.mailedTo === undefined ? null : normalizeEmail(options.mailedTo);
  await replaceEnrollmentToken(sql, identityId, tokenHash(token), now, expiresAt, mailedTo);
  const query = options.returnTo ? `?${new URLSearchParams({ return_to: options.returnTo })}` : '';
  return { url: `${issuer.replace(/\/+$/, '')}/enroll${query}#token=${token}`, expiresAt };
}

/**
 * The link setup and the development start print: only while the owner has no password yet. Once enrolled, a link
 * would reset the owner's credentials, so a rerun or a restart must not mint one; `gatehouse owner enroll-link` is
 * the deliberate way back in. Null means the owner is already enrolled.
 */
export async function issueFirstEnrollmentLink(
  sql: Executor,
  identityId: Sub,
  issuer: string,
  now: Date = new Date(),
): Promise<{ url: string; expiresAt: Date } | null> {
  const methods = await listSignInMethods(sql, identityId);
  if (methods.some((m) => m.kind === 'password')) return null;
  return await issueEnrollmentLink(sql, identityId, issuer, now);
}
