// userInfo(): the signed-in user's claims from the userinfo endpoint with the access token as Bearer (RFC 6750 §2.1).
import type { GatehouseConfig } from './config.ts';
import { discover } from './discovery.ts';
import { UserInfoError } from './errors.ts';

export interface UserInfo {
  sub: string;
  name?: string;
  email?: string;
  email_verified?: boolean;
  [claim: string]: unknown;
}

export async function userInfo(config: GatehouseConfig, accessToken: string): Promise<UserInfo> {
  const metadata = await discover(config);
  const response = await fetch(metadata.userinfo_endpoint, { headers: { authorization: `Bearer ${accessToken}` } });
  if (!response.ok) {
    // RFC 6750 §3: the error code is in WWW-Authenticate (and Gatehouse's JSON envelope).
    const challenge = response.headers.get('www-authenticate') ?? '';
    const error = /error="([^"]+)"/.exec(challenge)?.[1] ?? 'invalid_token';
    throw new UserInfoError(error, response.status);
  }
  const claims = (await response.json()) as Partial<UserInfo>;
  if (typeof claims.sub !== 'string') throw new UserInfoError('invalid_response', response.status);
  return claims as UserInfo;
}
