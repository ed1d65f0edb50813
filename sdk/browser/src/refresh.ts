// refresh(): a new access token from a refresh token (RFC 6749 §6). Gatehouse rotates refresh tokens, so the
// answer's refreshToken replaces the one sent, which stops working after the grace window.
import type { GatehouseConfig } from './config.ts';
import { requestTokens, type Tokens } from './token.ts';

export function refresh(config: GatehouseConfig, refreshToken: string): Promise<Tokens> {
  // The refreshed ID token repeats the sign-in's nonce (OIDC Core §12.2); there is no new one to compare.
  return requestTokens(config, { grant_type: 'refresh_token', refresh_token: refreshToken }, undefined);
}
