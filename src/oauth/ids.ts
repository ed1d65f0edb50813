import { secureRandomBytes, sha256 } from '../crypto/primitives.ts';

/**
 * The id of the grant a code creates, derived from the code: the token endpoint knows it from the code it is given,
 * so the refresh token that names the grant (refresh-token-value.ts) goes into the exchange's one statement without a
 * lookup first. Not reversible to the code, which is spent by the time the id shows (an access token's `gid`).
 */
export const grantIdOfCode = (code: string) =>
  `grt_${sha256(`grant-id:${code}`).subarray(0, 16).toString('base64url')}`;
export const newTokenId = () => secureRandomBytes(16).toString('base64url');

/** The id of the grant a device code creates (RFC 8628), derived from it as a code's is (grantIdOfCode). */
export const grantIdOfDeviceCode = (deviceCode: string) =>
  `grt_${sha256(`device-grant-id:${deviceCode}`).subarray(0, 16).toString('base64url')}`;
