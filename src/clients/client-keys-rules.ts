// What a client may register as its keys (RFC 7591 §2 `jwks`, `jwks_uri`) for private_key_jwt: public signing keys
// of the kinds the assertion algorithms use, and a URL the server may fetch them from.

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const isText = (value: unknown) => typeof value === 'string' && value.length > 0;

/** Why `key` is not a public signing key we can verify assertions with, or null. */
export function jwkProblem(key: Record<string, unknown>): string | null {
  if (PRIVATE_MEMBERS.some((member) => member in key))
    return 'must be a public key: private or symmetric key material is never registered';
  if (key.use !== undefined && key.use !== 'sig') return 'must be a signing key (use sig)';
  switch (key.kty) {
    case 'RSA':
      return isText(key.n) && isText(key.e) ? null : 'an RSA key needs n and e';
    case 'EC':
      return key.crv === 'P-256' && isText(key.x) && isText(key.y) ? null : 'an EC key must be P-256 with x and y';
    case 'OKP':
      return key.crv === 'Ed25519' && isText(key.x) ? null : 'an OKP key must be Ed25519 with x';
    default:
      return 'kty must be RSA, EC or OKP';
  }
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * A URL the server fetches from (a client's JWKS): https, no credentials, no fragment; plain http only to a
 * loopback host, and only for a development application.
 */
export function registeredUrlProblem(value: string, development: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.hash) return 'must not have a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname))
    return development ? null : 'may use http only to a loopback host in a development application';
  return 'must be an https URL';
}
