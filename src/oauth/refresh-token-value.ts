// What a refresh token is made of: a 256-bit random secret, the grant (token family) it belongs to, and a MAC over
// both under the signing secret, `<secret>~<grant id>~<mac>`. Only the secret's SHA-256 is stored. The grant id and
// its MAC let the server know one of its own tokens after the token's row is gone: a rotated token's row is deleted
// soon after the grace window, and presenting that token later is still recognised as a replay that revokes its
// family (RFC 9700 §4.14.2). So a family keeps a row or two, not one per rotation for a month (docs/decisions.md,
// "Refresh tokens name their family").
//
// Tokens issued before this format are the secret alone; they are still read, and their rows are kept as before.
// `~` is not in base64url and not in a JWT, so neither a secret nor an access token is ever mistaken for this form.
import { constantTimeEqual, hmac, randomToken, tokenHash } from '../crypto/primitives.ts';

const SEPARATOR = '~';
const PURPOSE = 'refresh-family:';
/** 43 characters of secret, `grt_` and 22, 22 of MAC and two separators; anything longer is not ours. */
const MAX_LENGTH = 128;

export interface RefreshSecret {
  secret: string;
  /** What oauth_refresh_tokens.token_hash holds. */
  hash: string;
}

export interface PresentedRefreshToken {
  /** The stored hash to look the token up by. */
  hash: string;
  /** The family the token names, proven by its MAC; null for a token of the earlier format. */
  grantId: string | null;
}

export function newRefreshSecret(): RefreshSecret {
  const secret = randomToken();
  return { secret, hash: tokenHash(secret) };
}

const macOf = (key: Buffer, secret: string, grantId: string) =>
  hmac(key, PURPOSE, grantId, SEPARATOR, secret).subarray(0, 16).toString('base64url');

/** The token the client receives for `secret`, once the grant it belongs to is known. */
export function refreshTokenValue(key: Buffer, secret: string, grantId: string): string {
  return [secret, grantId, macOf(key, secret, grantId)].join(SEPARATOR);
}

/** Reads a presented refresh token; null when it has this format but is not one the server made. */
export function readRefreshToken(key: Buffer, presented: string): PresentedRefreshToken | null {
  if (presented.length > MAX_LENGTH) return null;
  if (!presented.includes(SEPARATOR)) return { hash: tokenHash(presented), grantId: null };
  const [secret, grantId, mac, ...rest] = presented.split(SEPARATOR);
  if (!secret || !grantId || !mac || rest.length > 0) return null;
  if (!constantTimeEqual(mac, macOf(key, secret, grantId))) return null;
  return { hash: tokenHash(secret), grantId };
}
