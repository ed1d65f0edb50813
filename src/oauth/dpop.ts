// Where DPoP (RFC 9449) is decided: the proof of a token or PAR request (§5, §10.1), the binding rules of grants (§5.2
// per-client requirement, §5 public clients' refresh tokens, §10 codes bound by dpop_jkt), and the proof of a resource
// request against the token's `cnf.jkt` (§7). Proof syntax is dpop-proof.ts; nonces dpop-nonce.ts; single use of `jti` the shared replay store.
import type { Client } from '../clients/store.ts';
import { tokenHash } from '../crypto/primitives.ts';
import type { DpopNonces } from './dpop-nonce.ts';
import { type ExpectedProof, PROOF_MAX_AGE_SECONDS, ProofRefused, verifyDpopProof } from './dpop-proof.ts';
import { InvalidDpopProof, InvalidDpopToken, InvalidGrant, UseDpopNonce } from './errors.ts';
import type { JtiReplayGuard } from './jti-replay-guard.ts';
import type { AccessTokenClaims } from './tokens.ts';

export interface DpopDeps {
  /** The process's front of the replay store every node shares. */
  usedJtis: JtiReplayGuard;
  issuer: string;
  clock: () => Date;
  /** Null unless dpop.require_nonce is on. */
  nonces: DpopNonces | null;
}

/** The key a token request proved possession of: its tokens are bound to it (RFC 9449 §6). */
export interface DpopBinding {
  jkt: string;
}

type Place = 'token' | 'resource';

async function acceptProof(
  deps: DpopDeps,
  header: string | string[] | undefined,
  expected: ExpectedProof,
  at: Place,
): Promise<DpopBinding> {
  // RFC 9449 §4.3 item 1: exactly one DPoP header.
  if (header === undefined) throw new InvalidDpopProof('A DPoP proof is required', at);
  if (typeof header !== 'string' || header.includes(','))
    throw new InvalidDpopProof('Send exactly one DPoP header', at);
  let proof: Awaited<ReturnType<typeof verifyDpopProof>>;
  try {
    proof = await verifyDpopProof(header, expected);
  } catch (error) {
    if (error instanceof ProofRefused) throw new InvalidDpopProof(error.message, at);
    throw error;
  }
  if (deps.nonces && !deps.nonces.accepts(proof.nonce)) throw new UseDpopNonce(deps.nonces.current(), at);
  // §11.1: one use per jti (and key), remembered as long as the iat window could accept the proof.
  const expiresAt = new Date((proof.iat + PROOF_MAX_AGE_SECONDS + 10) * 1000);
  if (!(await deps.usedJtis.consume(`dpop:${proof.jkt}:${tokenHash(proof.jti)}`, expiresAt)))
    throw new InvalidDpopProof('The DPoP proof was already used (jti)', at);
  return { jkt: proof.jkt };
}

/**
 * The proof of a request to the token endpoint (RFC 9449 §5) or the PAR endpoint (§10.1), checked alike, with the
 * endpoint as its htu; null when the request has none.
 */
export async function requestBinding(
  deps: DpopDeps,
  header: string | string[] | undefined,
  endpoint: '/oauth/token' | '/oauth/par',
): Promise<DpopBinding | null> {
  if (header === undefined) return null;
  return acceptProof(deps, header, { htm: 'POST', htu: `${deps.issuer}${endpoint}`, now: deps.clock() }, 'token');
}

/** RFC 9449 §10: `dpop_jkt` is the base64url (no padding) SHA-256 JWK thumbprint of RFC 7638: 43 characters. */
export const isJwkThumbprint = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

/**
 * RFC 9449 §10.1: the key a pushed request's code is bound to. A proof binds it to the proof's key; a `dpop_jkt` sent
 * beside the proof must name that same key (the RFC names no error code; the proof does not prove the key the request
 * names, as at a resource whose token is bound to another key). Without a proof, the `dpop_jkt` sent, if any.
 */
export function pushedRequestJkt(sent: string | null, binding: DpopBinding | null): string | null {
  if (binding === null) return sent;
  if (sent !== null && sent !== binding.jkt)
    throw new InvalidDpopProof("The DPoP proof's key is not the one dpop_jkt names");
  return binding.jkt;
}

/** RFC 9449 §10: a code bound to a key is exchanged only with a proof by that key (none at all is refused too). */
export function requireCodeKey(codeJkt: string | null, binding: DpopBinding | null): void {
  if (codeJkt !== null && codeJkt !== binding?.jkt)
    throw new InvalidGrant(
      'The authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof signed with that key',
    );
}

/** RFC 9449 §5.2: a client registered with dpop_bound_access_tokens gets no token without a proof. */
export function requireBindingIfRegistered(client: Client, binding: DpopBinding | null): void {
  if (client.dpopBoundAccessTokens && binding === null)
    throw new InvalidDpopProof(
      'This client must send a DPoP proof with every token request (dpop_bound_access_tokens)',
    );
}

/** RFC 9449 §5: a public client's refresh tokens are bound to the key of the request that obtained them. */
export const refreshBindingOf = (client: Client, binding: DpopBinding | null): string | null =>
  client.tokenEndpointAuthMethod === 'none' ? (binding?.jkt ?? null) : null;

/** An access token as presented at a resource: the scheme says whether a proof must come with it. */
export interface PresentedToken {
  scheme: 'bearer' | 'dpop';
  token: string;
}

export interface ResourceRequest {
  method: string;
  /** The request path, without the query. */
  path: string;
  dpop: string | string[] | undefined;
}

/**
 * RFC 9449 §7: a token whose claims carry `cnf.jkt` is used only with the DPoP scheme and a proof by that key, for this
 * request and this token (`ath`); a bearer token is not accepted under the DPoP scheme, where the client meant to bind.
 */
export async function checkSenderConstraint(
  deps: DpopDeps,
  claims: AccessTokenClaims,
  presented: PresentedToken,
  request: ResourceRequest,
): Promise<void> {
  const jkt = claims.cnf?.jkt;
  if (jkt === undefined) {
    if (presented.scheme === 'dpop')
      throw new InvalidDpopToken('The access token is not DPoP-bound: send it as Bearer');
    return;
  }
  if (presented.scheme !== 'dpop')
    throw new InvalidDpopToken('The access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof');
  const binding = await acceptProof(
    deps,
    request.dpop,
    { htm: request.method, htu: `${deps.issuer}${request.path}`, now: deps.clock(), accessToken: presented.token },
    'resource',
  );
  if (binding.jkt !== jkt)
    throw new InvalidDpopProof('The DPoP proof was signed by another key than the token is bound to', 'resource');
}
