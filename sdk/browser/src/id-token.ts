// ID token validation (OIDC Core §3.1.3.7): RS256 signature against the issuer's JWKS, `iss`, `aud`, `exp`, `iat`,
// `nbf`, `azp`, `nonce` and `at_hash`. jose does the JOSE part; the OIDC rules on top are here.
import { createRemoteJWKSet, errors, type JWTPayload, jwtVerify } from 'jose';
import { type ClientConfig, DEFAULT_CLOCK_TOLERANCE } from './config.ts';
import type { ProviderMetadata } from './discovery.ts';
import { Expired, InvalidIdToken, NonceMismatch } from './errors.ts';
import { accessTokenHash } from './random.ts';

export interface IdTokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string | string[];
  exp: number;
  iat: number;
  azp?: string;
  nonce?: string;
  at_hash?: string;
  auth_time?: number;
  acr?: string;
  amr?: string[];
  sid?: string;
}

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

function keySet(jwksUri: string) {
  let keys = keySets.get(jwksUri);
  if (!keys) {
    // jose refetches the set when a token names an unknown kid (key rotation), at most every 30 s.
    keys = createRemoteJWKSet(new URL(jwksUri));
    keySets.set(jwksUri, keys);
  }
  return keys;
}

export interface IdTokenExpectations {
  /** The nonce the authorization request sent; undefined after a refresh, whose ID token repeats the sign-in's. */
  nonce?: string;
  accessToken: string;
}

export async function verifyIdToken(
  idToken: string,
  config: ClientConfig,
  metadata: ProviderMetadata,
  expected: IdTokenExpectations,
): Promise<IdTokenClaims> {
  const clockTolerance = config.clockTolerance ?? DEFAULT_CLOCK_TOLERANCE;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keySet(metadata.jwks_uri), {
      algorithms: ['RS256'],
      issuer: config.issuer,
      audience: config.clientId,
      clockTolerance,
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch (error) {
    if (error instanceof errors.JWTExpired) throw new Expired('the ID token has expired', { cause: error });
    throw new InvalidIdToken(`the ID token failed verification: ${(error as Error).message}`, { cause: error });
  }
  const claims = payload as IdTokenClaims;
  // jose checks iat only for type; an ID token issued in the future is not one this issuer sent now.
  if (claims.iat > Date.now() / 1000 + clockTolerance) throw new InvalidIdToken('the ID token is issued in the future');
  // OIDC Core §3.1.3.7 steps 4–5: with several audiences azp is required, and when present it must be this client.
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  if ((audiences.length > 1 || claims.azp !== undefined) && claims.azp !== config.clientId)
    throw new InvalidIdToken('the ID token was issued to another client (azp)');
  if (expected.nonce !== undefined && claims.nonce !== expected.nonce)
    throw new NonceMismatch('the ID token does not carry the nonce this sign-in sent');
  // §3.1.3.8: Gatehouse always sends at_hash, binding the ID token to the access token it came with.
  if (claims.at_hash !== (await accessTokenHash(expected.accessToken)))
    throw new InvalidIdToken('the ID token does not belong to this access token (at_hash)');
  return claims;
}
