// The signature of a DPoP proof (RFC 9449 §4.3 items 4–7): the key it carries in its `jwk` header, imported once per
// key, and the JWS signature checked with node:crypto for the four algorithms we accept. jose did this before; a
// proof is checked on every DPoP request, and jose's WebCrypto route cost about 45 µs of CPU per proof more than
// node:crypto's synchronous one (Ed25519, measured: docs/decisions.md "DPoP proofs on node:crypto"). What a JWS
// algorithm means is fixed here per name (RFC 7518 §3), never taken from the key.
import { constants, createHash, createPublicKey, type JsonWebKey, type KeyObject, verify } from 'node:crypto';
import { BoundedMap } from './bounded-map.ts';

/** RFC 9449 §4.2 `alg`: asymmetric only; RS256 and PS256 for keys clients already hold, ES256 and EdDSA. */
export const DPOP_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

/** RFC 7518 §3.3 and §3.5: RSA keys shorter than 2048 bits are not accepted. */
const MIN_RSA_BITS = 2048;
/** Members that only a private (or symmetric) JWK has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

export interface ProofKey {
  key: KeyObject;
  /** RFC 7638 SHA-256 thumbprint: the `cnf.jkt` of tokens bound to this key (RFC 9449 §6.1). */
  jkt: string;
}

export const isDpopAlgorithm = (alg: unknown): alg is DpopAlgorithm =>
  typeof alg === 'string' && (DPOP_ALGORITHMS as readonly string[]).includes(alg);

/** Whether `key` is of the kind `alg` signs with. */
function fits(alg: DpopAlgorithm, key: KeyObject): boolean {
  const details = key.asymmetricKeyDetails;
  switch (alg) {
    case 'EdDSA':
      return key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448';
    case 'ES256':
      return key.asymmetricKeyType === 'ec' && details?.namedCurve === 'prime256v1';
    case 'RS256':
    case 'PS256':
      return key.asymmetricKeyType === 'rsa' && (details?.modulusLength ?? 0) >= MIN_RSA_BITS;
  }
}

/** RFC 7638 §3.2: the required members of each key type, in lexicographic order, which is the order hashed. */
const THUMBPRINT_MEMBERS: Record<string, string[]> = {
  EC: ['crv', 'kty', 'x', 'y'],
  OKP: ['crv', 'kty', 'x'],
  RSA: ['e', 'kty', 'n'],
};

/**
 * RFC 7638 SHA-256 thumbprint: the JSON of the required members alone, no whitespace, in order, hashed. Null when a
 * member is missing or not a string. Written here with node:crypto rather than taken from jose, which a DPoP proof
 * then does not load.
 */
function jwkThumbprint(jwk: Record<string, unknown>): string | null {
  const members = THUMBPRINT_MEMBERS[String(jwk.kty)];
  if (!members || members.some((member) => typeof jwk[member] !== 'string')) return null;
  const canonical = JSON.stringify(Object.fromEntries(members.map((member) => [member, jwk[member]])));
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A client signs every proof with the same key: each is imported and hashed once. */
const KEYS_CACHED = 1_000;
const imported = new BoundedMap<string, ProofKey | null>(KEYS_CACHED);

/** The public key of a proof's `jwk` header, if it is one that `alg` signs with; null otherwise. */
export async function proofKey(alg: unknown, jwk: unknown): Promise<ProofKey | null> {
  if (!isDpopAlgorithm(alg) || typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) return null;
  const id = `${alg} ${JSON.stringify(jwk)}`;
  const known = imported.get(id);
  if (known !== undefined) return known;
  let found: ProofKey | null = null;
  // §4.3 item 7: the key must be public; a private key in a header would be a key its holder has given away.
  if (!PRIVATE_MEMBERS.some((member) => member in jwk)) {
    try {
      const key = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
      const jkt = jwkThumbprint(jwk as Record<string, unknown>);
      if (fits(alg, key) && jkt !== null) found = { key, jkt };
    } catch {
      // Not a JWK node:crypto can read: no key.
    }
  }
  imported.set(id, found);
  return found;
}

/** One of R and S as a DER INTEGER's content: no leading zero bytes but one, and a zero byte before a set high bit. */
function derIntegerContent(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const value = bytes.subarray(start);
  return (value[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.of(0), value]) : value;
}

/**
 * RFC 7518 §3.4's R || S as the DER SEQUENCE of two INTEGERs that OpenSSL verifies. node:crypto converts it itself when
 * asked (`dsaEncoding: 'ieee-p1363'`), but that path cost about 19 µs more per verification than this conversion and
 * a plain key (76 against 57 µs, Node 24 with OpenSSL 3.5, measured: docs/decisions.md). At most 2 × 33 bytes of
 * content, so every length fits DER's one-byte short form.
 */
export function p256SignatureToDer(signature: Buffer): Buffer {
  const r = derIntegerContent(signature.subarray(0, 32));
  const s = derIntegerContent(signature.subarray(32, 64));
  return Buffer.concat([Buffer.of(0x30, r.length + s.length + 4, 0x02, r.length), r, Buffer.of(0x02, s.length), s]);
}

/** Whether `signature` is `alg`'s signature of `signingInput` (the JWS's first two segments) by `key`. */
export function verifiesProof(alg: DpopAlgorithm, key: KeyObject, signingInput: string, signature: Buffer): boolean {
  const data = Buffer.from(signingInput);
  switch (alg) {
    case 'EdDSA':
      return verify(null, data, key, signature);
    case 'ES256':
      // RFC 7518 §3.4: R and S as two 32-byte big-endian integers, not DER (a DER signature is refused here).
      return signature.length === 64 && verify('sha256', data, key, p256SignatureToDer(signature));
    case 'RS256':
      return verify('sha256', data, key, signature);
    case 'PS256':
      // RFC 7518 §3.5: MGF1 with SHA-256 and a salt as long as the hash.
      return verify(
        'sha256',
        data,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
        signature,
      );
  }
}
