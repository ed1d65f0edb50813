// oauth4webapi (v3), a public client (`native` or `browser` kind: no secret).
import * as oauth from 'oauth4webapi';

export async function discover(issuer: URL, options?: oauth.DiscoveryRequestOptions) {
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
}

/** The code flow with PKCE only: Gatehouse needs neither state nor nonce. */
export async function startSignIn(as: oauth.AuthorizationServer, client: oauth.Client, redirectUri: string) {
  const codeVerifier = oauth.generateRandomCodeVerifier(); // keep it until the callback
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: 'openid offline_access',
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url, codeVerifier };
}

export async function finishSignIn(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  callbackUrl: URL,
  redirectUri: string,
  codeVerifier: string,
  options?: oauth.TokenEndpointRequestOptions,
) {
  // Checks `iss` (RFC 9207) and that no state came back; the ID token must carry no nonce.
  const params = oauth.validateAuthResponse(as, client, callbackUrl, oauth.expectNoState);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri,
    codeVerifier,
    options,
  );
  return oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });
}
