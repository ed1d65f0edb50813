// RS256 compact JWS for our own tokens (RFC 7515 §7.1, RFC 7518 §3.3), on node:crypto. Signing (about 1 ms of CPU
// for RSA-2048) uses the callback form of crypto.sign, which runs on the libuv thread pool so the event loop stays
// free. Verifying (about 40 µs: public exponent 65537) is synchronous: the callback form cost the event loop more
// than the verification itself (22% of the userinfo endpoint's main-thread profile against 9% synchronous), since
// queueing the job and collecting its result outweigh the work. Only RS256 is accepted: the algorithm is fixed
// here, never taken from the token (RFC 8725 §3.1).
import { type KeyObject, sign, verify } from 'node:crypto';

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const SEGMENT = /^[A-Za-z0-9_-]+$/;

export function signRs256(privateKey: KeyObject, header: Record<string, string>, payload: object): Promise<string> {
  const input = `${encode({ alg: 'RS256', ...header })}.${encode(payload)}`;
  return new Promise((resolve, reject) => {
    // RSASSA-PKCS1-v1_5 with SHA-256 is Node's default padding for RSA keys: exactly RS256.
    sign('sha256', Buffer.from(input), privateKey, (error, signature) => {
      if (error) reject(error);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}

export interface VerifiedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** A JWS header or payload segment: base64url JSON that must be an object; else null. */
export function decodeObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The header and payload of an RS256 JWS whose signature verifies with the key for its `kid`; else null. */
export async function verifyRs256(
  token: string,
  keyFor: (kid: string | undefined) => Promise<KeyObject | null>,
): Promise<VerifiedJws | null> {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return null;
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeObject(encodedHeader);
  // `crit` names extensions we do not understand, so such a token must be refused (RFC 7515 §4.1.11).
  if (header?.alg !== 'RS256' || header.crit !== undefined) return null;
  const key = await keyFor(typeof header.kid === 'string' ? header.kid : undefined);
  if (!key) return null;
  const signed = Buffer.from(`${encodedHeader}.${encodedPayload}`);
  if (!verify('sha256', signed, key, Buffer.from(encodedSignature, 'base64url'))) return null;
  const payload = decodeObject(encodedPayload);
  return payload ? { header, payload } : null;
}

/**
 * Whether `token` is shaped like a compact JWS at all (three base64url segments, header and payload JSON objects),
 * regardless of who signed it. Says nothing about where it came from.
 */
export function isCompactJws(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return false;
  return decodeObject(parts[0] as string) !== null && decodeObject(parts[1] as string) !== null;
}
