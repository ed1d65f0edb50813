// Housekeeping for OAuth state, so the tables stay the size of what is live rather than growing with every sign-in
// and refresh. Authorization codes: an exchange deletes its code's row (a replay is recognised by the grant the code
// names), so what is left here are codes never exchanged, kept a day after they expired so a late exchange is told
// so, and rows an earlier release marked used, at the same age. Refresh tokens go once they expired or their grant
// ended a day ago, and revoked access token ids once the token expired (an expired JWT is refused on its exp alone).
// Grants stay: they are the record of who authorized what, listed for the owner. Rotated refresh tokens do not wait
// for this: their family's next rotation deletes them (refresh-rotation.ts), and their value still names the family
// to catch a replay. Device codes (RFC 8628) go a day after they expired (a late poll is told expired_token until
// then); the user-code guessing counters are request counters, which housekeeping purges with the others.
import type { Executor } from '../db/pool.ts';
import {
  deleteEndedAuthorizationCodes,
  deleteEndedDeviceCodes,
  deleteEndedRefreshTokens,
  deleteExpiredRevokedAccessTokens,
} from './retention-store.ts';

export const ENDED_OAUTH_RETENTION_SECONDS = 86_400;

export interface OAuthPurgeReport {
  authorizationCodes: number;
  refreshTokens: number;
  revokedAccessTokens: number;
  deviceCodes: number;
}

export async function purgeOAuthRecords(sql: Executor, now: Date): Promise<OAuthPurgeReport> {
  const cutoff = new Date(now.getTime() - ENDED_OAUTH_RETENTION_SECONDS * 1000);
  return {
    authorizationCodes: await deleteEndedAuthorizationCodes(sql, cutoff),
    refreshTokens: await deleteEndedRefreshTokens(sql, cutoff),
    revokedAccessTokens: await deleteExpiredRevokedAccessTokens(sql, now),
    deviceCodes: await deleteEndedDeviceCodes(sql, cutoff),
  };
}
