// What a refresh token is made of: a 256-bit random secret, the grant (token family) it belongs to, and a MAC over
// both under the signing secret, `<secret>~<grant id>~<mac>`. Its SHA-256 is stored, as for every token. The grant
// id and its MAC let the server know one of its own tokens after the token's row is gone: a rotated token's row is
// deleted soon after the grace window, and presenting that token later is still recognised as a replay that revokes
// its family (RFC 9700 §4.14.2). So a family keeps a few rows, not one per rotation for a month (docs/decisions.md,
// "Refresh tokens name their family").
//
// A token is looked up by the hash of what was presented, as every token is; the MAC gives the grant a rotation's
// successor names, and decides only once the row is gone. So a token of the earlier format (the secret alone), one
// whose MAC no longer verifies (the signing secret was replaced), and one presented to a node of the previous
// release (which hashes it whole and finds its row) all keep working.
// `~` is not in base64url and not in a JWT, so neither a secret nor an access token is ever mistaken for this form.
import { constantTimeEqual, hmac, randomToken, tokenHash } from '../crypto/primitives.ts';

const SEPARATOR = '~';
const PURPOSE = 'refresh-family:';
/** 43 characters of secret, `grt_` and 22, 22 of MAC and two separators; anything longer names no grant. */
const MAX_LENGTH = 128;

export interface NewRefreshToken {
  value: string;
  /** What oauth_refresh_tokens.token_hash holds: tokenHash of the value, as for every token. */
  hash: string;
}

const macOf = (key: Buffer, secret: string, grantId: string) =>
  hmac(key, PURPOSE, grantId, SEPARATOR, secret).subarray(0, 16).toString('base64url');

export function newRefreshToken(key: Buffer, grantId: string): NewRefreshToken {
  const secret = randomToken();
  const value = [secret, grantId, macOf(key, secret, grantId)].join(SEPARATOR);
  return { value, hash: tokenHash(value) };
}

/** The grant a presented refresh token names, proven by its MAC; null when it names none or its MAC does not verify. */
export function grantNamedBy(key: Buffer, presented: string): string | null {
  if (presented.length > MAX_LENGTH) return null;
  const parts = presented.split(SEPARATOR);
  if (parts.length !== 3) return null;
  const [secret, grantId, mac] = parts as [string, string, string];
  if (!secret || !grantId || !constantTimeEqual(mac, macOf(key, secret, grantId))) return null;
  return grantId;
}
