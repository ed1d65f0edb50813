// The token response for a user grant (DESIGN.md "Token response"): a JWT access token for `target` (its audience
// and scope, src/oauth/resource-indicators.ts), an ID token when `openid` was granted (with at_hash, OIDC Core
// §3.1.3.6), and the refresh token when one was issued.

import type { DpopBinding } from './dpop.ts';
import type { GrantFacts } from './grant-store.ts';
import type { TokenResponse } from './grants/types.ts';
import type { TokenTarget } from './resource-indicators.ts';
import type { TokenSigner } from './tokens.ts';

export async function userTokenResponse(
  signer: TokenSigner,
  grant: GrantFacts,
  target: TokenTarget,
  refreshToken: string | null,
  binding: DpopBinding | null,
): Promise<TokenResponse> {
  const scopes = grant.scope.split(' ');
  const accessToken = await signer.signAccessToken({
    sub: grant.identityId,
    clientId: grant.clientId,
    audience: target.audience,
    scope: target.scope,
    grantId: grant.grantId,
    authTime: grant.authTime,
    acr: grant.acr,
    amr: grant.amr,
    ...(binding ? { jkt: binding.jkt } : {}),
  });
  const response: TokenResponse = {
    access_token: accessToken,
    token_type: binding ? 'DPoP' : 'Bearer',
    expires_in: signer.accessTokenTtlSeconds,
    // The access token's scope (RFC 6749 §5.1): what this token may do, which for a resource is that resource's part.
    scope: target.scope,
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
