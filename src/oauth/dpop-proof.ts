// DPoP proof JWTs (RFC 9449 §4.2, checked as §4.3 says). The signature and the key come from jose (EmbeddedJWK:
// the public key travels in the proof's header, and jose refuses a private one); what the proof must say (htm,
// htu, iat, jti, ath, nonce) is checked here. Used by the token endpoint and by every resource server of ours
// (userinfo, the gateway); single use of `jti` is the caller's check, through the replay store every node shares.
import {
  type CryptoKey,
  calculateJwkThumbprint,
  EmbeddedJWK,
  type FlattenedJWSInput,
  type JWK,
  type JWSHeaderParameters,
  jwtVerify,
} from 'jose';
import { sha256 } from '../crypto/primitives.ts';
import { BoundedMap } from './bounded-map.ts';

/** RFC 9449 §4.2 `alg`: asymmetric only; RS256 and PS256 for keys clients already hold, ES256 and EdDSA. */
export const DPOP_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
/** A proof is accepted this long after its `iat` (RFC 9449 §11.1: a short window bounds the replay store). */
export const PROOF_MAX_AGE_SECONDS = 60;
/** And this far ahead of our clock, for a client whose clock runs a little fast. */
const PROOF_FUTURE_SKEW_SECONDS = 5;
const MAX_PROOF_LENGTH = 8192;
const VERIFY_ALGORITHMS = [...DPOP_ALGORITHMS];

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

/** Public keys of recent proofs, imported once: a client signs every proof with the same key. */
const KEYS_CACHED = 1_000;
const importedKeys = new BoundedMap<string, { key: CryptoKey | Uint8Array; jkt: string }>(KEYS_CACHED);

/**
 * jose's EmbeddedJWK (it imports the header's key and refuses a private one), with the imported key and its RFC 7638
 * thumbprint kept per JWK: importing and hashing cost more than the signature check itself. `found` receives the
 * cache entry, so the caller reads the thumbprint without serialising the JWK a second time.
 */
function embeddedKey(found: (entry: { jkt: string }) => void) {
  return async (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    const id = `${header.alg} ${JSON.stringify(header.jwk)}`;
    const known = importedKeys.get(id);
    if (known) {
      found(known);
      return known.key;
    }
    const key = await EmbeddedJWK(header, token);
    const entry = { key, jkt: await calculateJwkThumbprint(header.jwk as JWK, 'sha256') };
    importedKeys.set(id, entry);
    found(entry);
    return key;
  };
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
  if (proof.length > MAX_PROOF_LENGTH || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(proof))
    throw new ProofRefused('The DPoP proof is not a compact JWS');
  let payload: Record<string, unknown>;
  let jkt = '';
  try {
    const result = await jwtVerify(
      proof,
      embeddedKey((entry) => {
        jkt = entry.jkt;
      }),
      { typ: 'dpop+jwt', algorithms: VERIFY_ALGORITHMS, currentDate: expected.now },
    );
    payload = result.payload;
  } catch {
    throw new ProofRefused(
      `The DPoP proof must be a dpop+jwt signed with ${DPOP_ALGORITHMS.join(', ')} by the public key in its jwk header`,
    );
  }
  const { htm, htu, iat, jti, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > 256)
    throw new ProofRefused('The DPoP proof needs a jti');
  if (htm !== expected.htm) throw new ProofRefused(`The DPoP proof's htm must be ${expected.htm}`);
  if (typeof htu !== 'string' || normaliseHtu(htu) !== normaliseExpectedHtu(expected.htu))
    throw new ProofRefused(`The DPoP proof's htu must be ${expected.htu}`);
  const now = Math.floor(expected.now.getTime() / 1000);
  if (typeof iat !== 'number' || iat < now - PROOF_MAX_AGE_SECONDS || iat > now + PROOF_FUTURE_SKEW_SECONDS)
    throw new ProofRefused('The DPoP proof was not issued just now (iat)');
  if (expected.accessToken !== undefined) {
    // RFC 9449 §4.2: ath is base64url(SHA-256(ASCII(access token))).
    if (ath !== sha256(expected.accessToken).toString('base64url'))
      throw new ProofRefused('The DPoP proof does not hash this access token (ath)');
  }
  if (nonce !== undefined && typeof nonce !== 'string') throw new ProofRefused('The DPoP proof nonce must be a string');
  return { jkt, jti, iat, nonce };
}
