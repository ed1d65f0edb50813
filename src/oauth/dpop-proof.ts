// DPoP proof JWTs (RFC 9449 §4.2, checked as §4.3 says): the JWS and its key (dpop-signature.ts), then what the
// proof must say (htm, htu, iat, jti, ath, nonce). Used by the token endpoint and by every resource server of ours
// (userinfo, the gateway); single use of `jti` is the caller's check, through the replay store every node shares.
import { sha256 } from '../crypto/primitives.ts';
import { BoundedMap } from './bounded-map.ts';
import { DPOP_ALGORITHMS, isDpopAlgorithm, proofKey, verifiesProof } from './dpop-signature.ts';
import { decodeObject } from './jws.ts';

/** A proof is accepted this long after its `iat` (RFC 9449 §11.1: a short window bounds the replay store). */
export const PROOF_MAX_AGE_SECONDS = 60;
/** And this far ahead of our clock, for a client whose clock runs a little fast. */
const PROOF_FUTURE_SKEW_SECONDS = 5;
const MAX_PROOF_LENGTH = 8192;
const COMPACT_JWS = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/;

export interface ExpectedProof {
  htm: string;
  /** The request's URI as this server is reached (issuer + path). */
  htu: string;
  now: Date;
  /** The access token presented with the proof (resource requests, RFC 9449 §7): the proof's `ath` must hash it. */
  accessToken?: string;
}

export interface VerifiedProof {
  /** RFC 7638 SHA-256 thumbprint of the proof's key, the `cnf.jkt` of tokens bound to it (RFC 9449 §6.1). */
  jkt: string;
  jti: string;
  iat: number;
  /** The `nonce` claim, when the proof carries one. */
  nonce: string | undefined;
}

export class ProofRefused extends Error {}

/** RFC 7515 §4.1.9: `typ` compares case-insensitively and may carry the "application/" prefix. */
const isDpopType = (typ: unknown) =>
  typeof typ === 'string' && ['dpop+jwt', 'application/dpop+jwt'].includes(typ.toLowerCase());

/**
 * The proof's JWS checked (RFC 9449 §4.3 items 2–7): typ dpop+jwt, an accepted algorithm, no extension we would have
 * to understand (`crit`), and a signature by the public key in its `jwk` header. Its claims and that key's
 * thumbprint, or null.
 */
async function verifiedJws(
  encodedHeader: string,
  encodedPayload: string,
  encodedSignature: string,
): Promise<{ claims: Record<string, unknown>; jkt: string } | null> {
  const header = decodeObject(encodedHeader);
  if (!header || !isDpopType(header.typ) || header.crit !== undefined || !isDpopAlgorithm(header.alg)) return null;
  const key = await proofKey(header.alg, header.jwk);
  if (!key) return null;
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (!verifiesProof(header.alg, key.key, `${encodedHeader}.${encodedPayload}`, signature)) return null;
  const claims = decodeObject(encodedPayload);
  return claims ? { claims, jkt: key.jkt } : null;
}

/** RFC 9449 §4.3 item 9: htu compared without query and fragment, after URI normalisation (RFC 3986 §6). */
export function normaliseHtu(value: string): string | null {
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return null;
  }
}

// The token endpoint and userinfo expect the same htu on every request: normalised once, not per proof. Gateway paths
// vary; the map is bounded, so they only churn it.
const NORMALISED_EXPECTED = 64;
const normalisedExpected = new BoundedMap<string, string | null>(NORMALISED_EXPECTED);
function normaliseExpectedHtu(value: string): string | null {
  let normalised = normalisedExpected.get(value);
  if (normalised === undefined) {
    normalised = normaliseHtu(value);
    normalisedExpected.set(value, normalised);
  }
  return normalised;
}

/** One DPoP header value, verified; ProofRefused says why not (its message is safe to send). */
export async function verifyDpopProof(proof: string, expected: ExpectedProof): Promise<VerifiedProof> {
  const parts = proof.length > MAX_PROOF_LENGTH ? null : COMPACT_JWS.exec(proof);
  if (!parts) throw new ProofRefused('The DPoP proof is not a compact JWS');
  const verified = await verifiedJws(parts[1] as string, parts[2] as string, parts[3] as string);
  if (!verified)
    throw new ProofRefused(
      `The DPoP proof must be a dpop+jwt signed with ${DPOP_ALGORITHMS.join(', ')} by the public key in its jwk header`,
    );
  const { claims: payload, jkt } = verified;
  const { htm, htu, iat, jti, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
    throw new ProofRefused('The DPoP proof needs a jti');
  if (htm !== expected.htm) throw new ProofRefused(`The DPoP proof's htm must be ${expected.htm}`);
  if (typeof htu !== 'string' || normaliseHtu(htu) !== normaliseExpectedHtu(expected.htu))
    throw new ProofRefused(`The DPoP proof's htu must be ${expected.htu}`);
  const now = Math.floor(expected.now.getTime() / 1000);
  if (typeof iat !== 'number' || iat < now - PROOF_MAX_AGE_SECONDS || iat > now + PROOF_FUTURE_SKEW_SECONDS)
    throw new ProofRefused('The DPoP proof was not issued just now (iat)');
  // A proof need not expire (iat bounds it), but one that says it has is not accepted (RFC 7519 §4.1.4).
  if (payload.exp !== undefined && (typeof payload.exp !== 'number' || payload.exp <= now))
    throw new ProofRefused('The DPoP proof has expired (exp)');
  if (expected.accessToken !== undefined) {
    // RFC 9449 §4.2: ath is base64url(SHA-256(ASCII(access token))).
    if (ath !== sha256(expected.accessToken).toString('base64url'))
      throw new ProofRefused('The DPoP proof does not hash this access token (ath)');
  }
  if (nonce !== undefined && typeof nonce !== 'string') throw new ProofRefused('The DPoP proof nonce must be a string');
  return { jkt, jti, iat, nonce };
}
