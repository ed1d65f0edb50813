// JWT issuance and validation. Access tokens follow RFC 9068 (`typ: at+jwt`); ID tokens OIDC Core §2. Both RS256
// with the keyring's newest key; time comes from the injected clock so tests move it instead of sleeping.
import type { KeyObject } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { sha256 } from '../crypto/primitives.ts';
import { BoundedMap } from './bounded-map.ts';
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
  /** RFC 9449 §6.1: the JWK thumbprint of the DPoP key the token is bound to (`cnf.jkt`). */
  jkt?: string;
  /** RFC 8693 §4.1: who acts for `sub` (a token issued by exchange), prior actors nested inside. */
  act?: ActorClaim;
  /** Epoch seconds the token must not outlive (an exchanged token ends with its subject token); absent: ttl only. */
  notAfter?: number;
}

/** RFC 8693 §4.1 `act`: the current actor, and nested in it the actor before it. */
export interface ActorClaim {
  sub: string;
  act?: ActorClaim;
}

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  client_id: string;
  scope: string;
  jti: string;
  exp: number;
  iat: number;
  gid?: string;
  /** RFC 9449 §6.1 / RFC 7800: the key a DPoP-bound token is bound to. */
  cnf?: { jkt: string };
  /** RFC 8693 §4.1: present on a token issued by token exchange. */
  act?: ActorClaim;
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
  async function sign(claims: JWTPayload, typ: string, ttlSeconds: number, notAfter = Infinity): Promise<string> {
    const key = await deps.keyring.signingKey();
    const now = seconds(deps.clock());
    return signRs256(
      key.privateKey,
      { typ, kid: key.kid },
      { iss: deps.issuer, ...claims, iat: now, exp: Math.min(now + ttlSeconds, notAfter) },
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
      if (input.jkt) claims.cnf = { jkt: input.jkt };
      if (input.act) claims.act = input.act;
      return sign(claims, 'at+jwt', deps.accessTokenTtlSeconds, input.notAfter);
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
    /** §2.4: sub and sid, the event, a jti, never a nonce; typ logout+jwt (§2.4, RFC 8417 explicit typing). */
    signLogoutToken(input: { clientId: string; sub: string; sid: string }): Promise<string> {
      const claims: JWTPayload = {
        sub: input.sub,
        aud: input.clientId,
        sid: input.sid,
        jti: newTokenId(),
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      };
      return sign(claims, 'logout+jwt', LOGOUT_TOKEN_TTL_SECONDS);
    },
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;

/** OIDC Back-Channel Logout 1.0 §2.4: the event a logout token carries. */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token is consumed at once by the client it is posted to: two minutes is plenty. */
const LOGOUT_TOKEN_TTL_SECONDS = 120;

export interface TokenVerifierDeps {
  keyring: Keyring;
  issuer: string;
  clock: () => Date;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const MAX_JWT_LENGTH = 8192;
export const looksLikeJwt = (token: string) => token.length < MAX_JWT_LENGTH && JWT_SHAPE.test(token);

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isString = (value: unknown): value is string => typeof value === 'string';

/** How deeply `act` claims may nest: deeper than any chain token exchange issues (token-exchange.ts), bounded. */
const MAX_ACT_NESTING = 16;

/** RFC 8693 §4.1: an object with a string `sub`, and possibly the prior actor nested the same way. */
function isActorClaim(value: unknown, depth = 1): value is ActorClaim {
  if (depth > MAX_ACT_NESTING || typeof value !== 'object' || value === null) return false;
  const { sub, act } = value as { sub?: unknown; act?: unknown };
  return isString(sub) && (act === undefined || isActorClaim(act, depth + 1));
}

/** RFC 9068 §2.1: `typ` is `at+jwt` (or the full media type), compared case-insensitively. */
const isAccessTokenType = (typ: unknown) =>
  isString(typ) && ['at+jwt', 'application/at+jwt'].includes(typ.toLowerCase());

/** Distinct access tokens whose verified claims a node keeps (about 2 KB each, the token included). */
const VERIFIED_TOKENS_CACHED = 10_000;
/** 32 characters of an RS256 signature: 192 bits that differ between any two tokens we signed. */
const CACHE_KEY_LENGTH = 32;

interface VerifiedToken {
  token: string;
  claims: AccessTokenClaims;
  kid: string | undefined;
  /** The key object that verified the signature: the entry holds only while the keyring still returns it. */
  key: KeyObject;
}

/**
 * Verifies signature (keyring), `typ`, `iss`, `exp`, `nbf` and the claim types we rely on (RFC 9068 §4); returns
 * the claims or null. Revocation is the caller's check (introspection).
 *
 * What the signature check establishes is a pure function of the token and the key, so it is cached per token, and the
 * RSA verification (about 40 µs) runs once per token and key set. The cache is keyed by the token's last characters
 * (signature bytes, distinct per token) rather than the whole token, whose hash (900 characters, hashed afresh for
 * every request's new string) cost more than the lookup; a hit counts only when the whole token is equal. A hit still
 * asks the keyring for the token's key and must get the very object that verified it: the keyring keeps a key's
 * objects while it publishes the key (a reload that finds the key unchanged keeps them), builds new ones if its stored
 * key changed, and does not return a retired key past its publication window at all, so an entry lasts exactly as long
 * as its key verifies. The time checks run on every call; only successful verifications are cached.
 */
export function createAccessTokenVerifier(deps: TokenVerifierDeps): AccessTokenVerifier {
  const verified = new BoundedMap<string, VerifiedToken>(VERIFIED_TOKENS_CACHED);
  const timely = (claims: AccessTokenClaims, now: number) =>
    claims.exp > now && (claims.nbf === undefined || (claims.nbf as number) <= now);

  async function verifySigned(token: string, cacheKey: string): Promise<AccessTokenClaims | null> {
    const hit = verified.get(cacheKey);
    if (hit?.token === token) {
      if ((await deps.keyring.findVerificationKey(hit.kid)) === hit.key) return hit.claims;
      verified.delete(cacheKey);
    }
    if (!looksLikeJwt(token)) return null;
    let key: KeyObject | null = null;
    let kid: string | undefined;
    const result = await verifyRs256(token, async (headerKid) => {
      kid = headerKid;
      key = await deps.keyring.findVerificationKey(headerKid);
      return key;
    });
    if (!result || !key || !isAccessTokenType(result.header.typ)) return null;
    const claims = result.payload;
    if (claims.iss !== deps.issuer) return null;
    if (!isNumber(claims.exp) || !isNumber(claims.iat)) return null;
    if (claims.nbf !== undefined && !isNumber(claims.nbf)) return null;
    if (![claims.sub, claims.jti, claims.client_id, claims.scope].every(isString)) return null;
    if (claims.gid !== undefined && !isString(claims.gid)) return null;
    if (claims.cnf !== undefined && !isString((claims.cnf as { jkt?: unknown } | null)?.jkt)) return null;
    if (claims.act !== undefined && !isActorClaim(claims.act)) return null;
    // Shared by every request presenting this token: frozen so no caller can alter what the next one sees.
    const frozen = Object.freeze(claims) as AccessTokenClaims;
    verified.set(cacheKey, { token, claims: frozen, kid, key });
    return frozen;
  }

  function cachedClaims(token: string): AccessTokenClaims | undefined {
    const hit = verified.get(token.slice(-CACHE_KEY_LENGTH));
    if (hit?.token !== token || deps.keyring.verificationKeyNow(hit.kid) !== hit.key) return undefined;
    return timely(hit.claims, seconds(deps.clock())) ? hit.claims : undefined;
  }

  return {
    cachedClaims,
    async verify(token) {
      // A cached token whose key set is fresh needs none of the awaits below (userinfo and revocation too).
      const known = cachedClaims(token);
      if (known) return known;
      if (token.length >= MAX_JWT_LENGTH) return null;
      const cacheKey = token.slice(-CACHE_KEY_LENGTH);
      const claims = await verifySigned(token, cacheKey);
      if (!claims) return null;
      if (!timely(claims, seconds(deps.clock()))) {
        if (verified.get(cacheKey)?.token === token) verified.delete(cacheKey);
        return null;
      }
      return claims;
    },
  };
}

export interface AccessTokenVerifier {
  /** The claims of a valid access token of ours, or null. */
  verify(token: string): Promise<AccessTokenClaims | null>;
  /**
   * The claims of a token this node verified before, while the keyring still holds the key that verified it and the
   * time claims hold; no promise, for the hot paths. Undefined when only verify() can tell.
   */
  cachedClaims(token: string): AccessTokenClaims | undefined;
}
