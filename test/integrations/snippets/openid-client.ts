// openid-client (v6), server-side web app with a `web` client.
import * as client from 'openid-client';

/** Discovery, with the secret sent in the form body: Gatehouse refuses HTTP Basic. */
export function gatehouseConfig(
  issuer: URL,
  clientId: string,
  clientSecret: string,
  options?: client.DiscoveryRequestOptions,
) {
  return client.discovery(issuer, clientId, undefined, client.ClientSecretPost(clientSecret), options);
}

/** The library's recommended flow: PKCE, and no state or nonce, because Gatehouse advertises S256. */
export async function startSignIn(config: client.Configuration, redirectUri: string) {
  const codeVerifier = client.randomPKCECodeVerifier(); // keep it in the user's session until the callback
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { url, codeVerifier };
}

export function finishSignIn(config: client.Configuration, callbackUrl: URL, codeVerifier: string) {
  return client.authorizationCodeGrant(config, callbackUrl, { pkceCodeVerifier: codeVerifier, idTokenExpected: true });
}
