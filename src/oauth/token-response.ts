// The token response for a user grant (DESIGN.md "Token response"): a JWT access token, an ID token when `openid`
// was granted (with at_hash, OIDC Core §3.1.3.6), and the refresh token when one was issued.
import type { TokenResponse } from './grants/types.ts';
import type { GrantFacts } from './store.ts';
import type { TokenSigner } from './tokens.ts';

export async function userTokenResponse(
  signer: TokenSigner,
  issuer: string,
  grant: GrantFacts,
  refreshToken: string | null,
): Promise<TokenResponse> {
  const scopes = grant.scope.split(' ');
  const accessToken = await signer.signAccessToken({
    sub: grant.identityId,
    clientId: grant.clientId,
    // Without a resource indicator the token is for Gatehouse itself (userinfo), so its audience is the issuer.
    audience: issuer,
    scope: grant.scope,
    grantId: grant.grantId,
    authTime: grant.authTime,
    acr: grant.acr,
    amr: grant.amr,
  });
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: signer.accessTokenTtlSeconds,
    scope: grant.scope,
  };
  if (scopes.includes('openid'))
    response.id_token = await signer.signIdToken({
      sub: grant.identityId,
      clientId: grant.clientId,
      nonce: grant.nonce,
      accessToken,
      authTime: grant.authTime,
      acr: grant.acr,
      amr: grant.amr,
      sessionId: grant.sessionId,
    });
  if (refreshToken) response.refresh_token = refreshToken;
  return response;
}
