// Auth.js (next-auth v5, @auth/core): Gatehouse's tokens kept in the session JWT, the access token renewed when it
// expires (Auth.js's refresh token rotation guide), and a sign-out that ends the Gatehouse session too.
import type { AuthConfig } from '@auth/core';
import type { JWT } from '@auth/core/jwt';
import type { OIDCConfig } from '@auth/core/providers';

/** The provider asking for offline_access too: without it Gatehouse issues no refresh token. */
export function withOfflineAccess<P>(provider: OIDCConfig<P>): OIDCConfig<P> {
  return { ...provider, authorization: { params: { scope: 'openid profile email offline_access' } } };
}

interface GatehouseTokens {
  access_token: string;
  expires_in: number;
  refresh_token: string;
  id_token?: string;
}

export function gatehouseSessionCallbacks(
  issuer: string,
  clientId: string,
  clientSecret: string,
): NonNullable<AuthConfig['callbacks']> {
  return {
    async jwt({ token, account }) {
      // At sign-in: keep what Gatehouse answered (Auth.js computed expires_at from expires_in).
      if (account)
        return {
          ...token,
          access_token: account.access_token,
          expires_at: account.expires_at,
          refresh_token: account.refresh_token,
          id_token: account.id_token,
        };
      if (Date.now() < Number(token.expires_at) * 1000) return token;
      // Expired: the refresh token grant, the secret in the form body. Gatehouse rotates the refresh token (the one
      // sent here is refused from now on) and sends a new ID token of the same sign-in.
      try {
        const response = await fetch(`${issuer}/oauth/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'refresh_token',
            refresh_token: String(token.refresh_token),
            client_id: clientId,
            client_secret: clientSecret,
          }),
        });
        const answer = await response.json();
        if (!response.ok) throw answer;
        const tokens = answer as GatehouseTokens;
        return {
          ...token,
          access_token: tokens.access_token,
          expires_at: Math.floor(Date.now() / 1000 + tokens.expires_in),
          refresh_token: tokens.refresh_token,
          id_token: tokens.id_token ?? token.id_token,
        };
      } catch {
        // The grant was revoked or has expired: the app sees session.error and signs the person in again.
        return { ...token, error: 'RefreshTokenError' };
      }
    },
    // What the app's pages get: the access token for its API calls, never the refresh token.
    session({ session, token }) {
      return { ...session, accessToken: token.access_token, error: token.error };
    },
    // Lets signOut() continue to Gatehouse's end_session_endpoint; otherwise Auth.js's default (this app's own URLs).
    redirect({ url, baseUrl }) {
      if (url.startsWith(`${issuer}/oauth/logout?`)) return url;
      if (url.startsWith('/')) return `${baseUrl}${url}`;
      return new URL(url).origin === baseUrl ? url : baseUrl;
    },
  };
}

/**
 * Where signOut() sends the browser: Gatehouse ends its session without asking when the hint is that session's ID
 * token, then sends the browser to `postLogoutRedirectUri` (registered on the client). `token` is the session JWT,
 * from Auth.js's getToken().
 */
export function gatehouseSignOutUrl(
  issuer: string,
  clientId: string,
  token: JWT | null,
  postLogoutRedirectUri: string,
) {
  const params = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: postLogoutRedirectUri });
  if (typeof token?.id_token === 'string') params.set('id_token_hint', token.id_token);
  return `${issuer}/oauth/logout?${params}`;
}
