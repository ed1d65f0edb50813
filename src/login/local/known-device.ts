// Device cookies (OWASP "Slow Down Online Guessing Attacks with Device Cookies"): a browser that completed a full
// sign-in (password plus second factor, or a second step after another method) to an account keeps a signed entry
// naming that account, so its later attempts there are counted against a failure budget of its own instead of the
// one all unknown clients share.
// Strangers hammering an account then lock out only strangers; the owner's browsers keep signing in.
//
// An entry is `<id>.<expires>.<mac>`: a random 128-bit id (the key of the device's own throttle counter), the Unix
// expiry second, and an HMAC over the sign-in subject, id and expiry. The subject is not in the cookie (nothing to
// read on a shared computer) and the MAC cannot be made without the signing key, so nobody can forge an entry for
// another account or stretch one's life. One browser keeps entries for up to DEVICE_ENTRIES_KEPT accounts.
import { constantTimeEqual, hmac, randomToken } from '../../crypto/primitives.ts';

/** Half a year, renewed at every full sign-in: a browser used at least twice a year stays known. */
export const DEVICE_COOKIE_SECONDS = 180 * 24 * 3600;
/** Accounts one browser is known for (a shared family computer); the least recently signed-in drop out. */
export const DEVICE_ENTRIES_KEPT = 5;

const ENTRY = /^([A-Za-z0-9_-]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{22})$/;
const MAX_COOKIE_LENGTH = DEVICE_ENTRIES_KEPT * 60;

interface Entry {
  id: string;
  expires: number;
  mac: string;
}

/**
 * What an entry vouches for: a password sign-in of a typed subject (the normalized address), or the second step
 * (src/login/step-up/second-factor.ts) of an identity, whose sign-in may have been by any method. Each has its own
 * MAC label, so an entry made for one can never pass for the other whatever a typed subject holds.
 */
export type DevicePurpose = 'sign-in' | 'second-step';

const LABELS: Record<DevicePurpose, string> = {
  'sign-in': 'gatehouse-device-cookie\0',
  'second-step': 'gatehouse-device-cookie-second-step\0',
};

// Truncated to 128 bits, which RFC 2104 §5 allows (not less than half the hash output).
const macFor = (key: Buffer, purpose: DevicePurpose, subject: string, id: string, expires: number) =>
  hmac(key, LABELS[purpose], subject, '\0', id, '\0', String(expires)).subarray(0, 16).toString('base64url');

const format = (e: Entry) => `${e.id}.${e.expires}.${e.mac}`;

/** Well-formed, unexpired entries; anything else in the cookie is ignored (it counts as no device cookie). */
function liveEntries(value: string | null, now: Date): Entry[] {
  if (!value || value.length > MAX_COOKIE_LENGTH) return [];
  const seconds = Math.floor(now.getTime() / 1000);
  return value.split('~').flatMap((part) => {
    const m = ENTRY.exec(part);
    return m?.[1] && m[3] && Number(m[2]) > seconds ? [{ id: m[1], expires: Number(m[2]), mac: m[3] }] : [];
  });
}

/** The id of this browser's authentic, unexpired entry for `subject`, or null: then it is an unknown client. */
export function knownDeviceId(
  key: Buffer,
  cookie: string | null,
  subject: string,
  now: Date,
  purpose: DevicePurpose = 'sign-in',
): string | null {
  const entry = liveEntries(cookie, now).find((e) =>
    constantTimeEqual(e.mac, macFor(key, purpose, subject, e.id, e.expires)),
  );
  return entry?.id ?? null;
}

/**
 * The cookie value after a full sign-in to `subject`: its entry (same id when the browser was already known, so its
 * counter carries on) renewed and put first, then the other live entries, at most DEVICE_ENTRIES_KEPT in all.
 */
export function rememberDevice(
  key: Buffer,
  cookie: string | null,
  subject: string,
  now: Date,
  purpose: DevicePurpose = 'sign-in',
): string {
  const id = knownDeviceId(key, cookie, subject, now, purpose) ?? randomToken(16);
  const expires = Math.floor(now.getTime() / 1000) + DEVICE_COOKIE_SECONDS;
  const others = liveEntries(cookie, now).filter((e) => e.id !== id);
  return [{ id, expires, mac: macFor(key, purpose, subject, id, expires) }, ...others]
    .slice(0, DEVICE_ENTRIES_KEPT)
    .map(format)
    .join('~');
}
