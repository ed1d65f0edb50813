// JWT issuance and validation. Access tokens follow RFC 9068 (`typ: at+jwt`); ID tokens OIDC Core §2. Both RS256
// with the keyring's newest key; time comes from the injected clock so tests move it instead of sleeping.
import type { JWTPayload } from 'jose';
import { sha256 } from '../crypto/primitives.ts';
import { newTokenId } from './ids.ts';
import { signRs256, verifyRs256 } from './jws.ts';
import type { Keyring } from './keyring.ts';

export interface TokenSignerDeps {
  keyring: Keyring;
  issuer: string;
  clock: () => Date;
  accessTokenTtlSeconds: number;
  idTokenTtlSeconds: number;
}

export interface AccessTokenInput {
  sub: string;
  clientId: string;
  audience: string;
  scope: string;
  /** The grant (token family) a user token belongs to; absent for client credentials. */
  grantId?: string;
  authTime?: Date;
  acr?: string;
  amr?: string[];
}

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  exp: number;
  iat: number;
  gid?: string;
}

export interface IdTokenInput {
  sub: string;
  clientId: string;
  nonce: string | null;
  accessToken: string;
  authTime: Date;
  acr: string;
  amr: string[];
  sessionId: string;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** OIDC Core §3.1.3.6: left half of SHA-256 of the access token, base64url. */
export const atHash = (accessToken: string) => sha256(accessToken).subarray(0, 16).toString('base64url');

export function createTokenSigner(deps: TokenSignerDeps) {
  async function sign(claims: JWTPayload, typ: string, ttlSeconds: number): Promise<string> {
    const key = await deps.keyring.signingKey();
    const now = seconds(deps.clock());
    return signRs256(
      key.privateKey,
      { typ, kid: key.kid },
      { iss: deps.issuer, ...claims, iat: now, exp: now + ttlSeconds },
    );
  }

  return {
    accessTokenTtlSeconds: deps.accessTokenTtlSeconds,
    signAccessToken(input: AccessTokenInput): Promise<string> {
      const claims: JWTPayload = {
        sub: input.sub,
        aud: input.audience,
        client_id: input.clientId,
        scope: input.scope,
        jti: newTokenId(),
      };
      if (input.grantId) claims.gid = input.grantId;
      if (input.authTime) claims.auth_time = seconds(input.authTime);
      if (input.acr) claims.acr = input.acr;
      if (input.amr) claims.amr = input.amr;
      return sign(claims, 'at+jwt', deps.accessTokenTtlSeconds);
    },
    signIdToken(input: IdTokenInput): Promise<string> {
      const claims: JWTPayload = {
        sub: input.sub,
        aud: input.clientId,
        azp: input.clientId,
        at_hash: atHash(input.accessToken),
        auth_time: seconds(input.authTime),
        acr: input.acr,
        amr: input.amr,
        sid: input.sessionId,
      };
      if (input.nonce !== null) claims.nonce = input.nonce;
      return sign(claims, 'JWT', deps.idTokenTtlSeconds);
    },
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;

export interface TokenVerifierDeps {
  keyring: Keyring;
  issuer: string;
  clock: () => Date;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
export const looksLikeJwt = (token: string) => token.length < 8192 && JWT_SHAPE.test(token);

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isString = (value: unknown): value is string => typeof value === 'string';

/** RFC 9068 §2.1: `typ` is `at+jwt` (or the full media type), compared case-insensitively. */
const isAccessTokenType = (typ: unknown) =>
  isString(typ) && ['at+jwt', 'application/at+jwt'].includes(typ.toLowerCase());

/**
 * Verifies signature (keyring), `typ`, `iss`, `exp`, `nbf` and the claim types we rely on (RFC 9068 §4); returns
 * the claims or null. Revocation is the caller's check (introspection).
 */
export function createAccessTokenVerifier(deps: TokenVerifierDeps) {
  return async (token: string): Promise<AccessTokenClaims | null> => {
    if (!looksLikeJwt(token)) return null;
    const verified = await verifyRs256(token, (kid) => deps.keyring.findVerificationKey(kid));
    if (!verified || !isAccessTokenType(verified.header.typ)) return null;
    const claims = verified.payload;
    const now = seconds(deps.clock());
    if (claims.iss !== deps.issuer) return null;
    if (!isNumber(claims.exp) || claims.exp <= now || !isNumber(claims.iat)) return null;
    if (claims.nbf !== undefined && (!isNumber(claims.nbf) || claims.nbf > now)) return null;
    if (![claims.sub, claims.jti, claims.client_id, claims.scope].every(isString)) return null;
    if (claims.gid !== undefined && !isString(claims.gid)) return null;
    return claims as AccessTokenClaims;
  };
}

export type AccessTokenVerifier = ReturnType<typeof createAccessTokenVerifier>;
