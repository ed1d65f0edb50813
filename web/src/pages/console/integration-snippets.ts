// Minimal client-library configurations for one Gatehouse client, with its values filled in. Each sets the options and
// makes the calls of the configuration test/integrations/snippets/ runs (and docs/integrations.md quotes);
// test/integrations/console-snippets.test.ts holds them to that. Every snippet authenticates a confidential client with
// client_secret_post: Gatehouse refuses HTTP Basic (token_endpoint_auth_method client_secret_basic).
import type { Client } from './types.ts';

export interface SnippetValues {
  issuer: string;
  clientId: string;
  redirectUri: string;
  /** The first registered post-logout redirect URI, or the redirect URI's origin to register as one. */
  postLogoutRedirectUri: string;
  scope: string;
  /** True for web clients, which hold a secret; browser and native clients are public and use PKCE alone. */
  confidential: boolean;
}

export interface Snippet {
  library: string;
  code: string;
}

export function snippetValues(issuer: string, client: Client): SnippetValues {
  return {
    issuer,
    clientId: client.client_id,
    redirectUri: client.redirect_uris[0] ?? 'https://app.example.org/callback',
    postLogoutRedirectUri:
      client.post_logout_redirect_uris?.[0] ??
      `${new URL(client.redirect_uris[0] ?? 'https://app.example.org/callback').origin}/`,
    scope: client.scopes.join(' ') || 'openid',
    confidential: client.kind === 'web',
  };
}

const SECRET = 'process.env.GATEHOUSE_CLIENT_SECRET';

const openidClient = (v: SnippetValues) => `import * as client from 'openid-client';

const config = await client.discovery(
  new URL('${v.issuer}'),
  '${v.clientId}',
  ${v.confidential ? `{ token_endpoint_auth_method: 'client_secret_post' },\n  client.ClientSecretPost(${SECRET}),` : `undefined,\n  client.None(),`}
);
// PKCE: keep code_verifier (and state) in the user's session until the callback.
const code_verifier = client.randomPKCECodeVerifier();
const url = client.buildAuthorizationUrl(config, {
  redirect_uri: '${v.redirectUri}',
  scope: '${v.scope}',
  code_challenge: await client.calculatePKCECodeChallenge(code_verifier),
  code_challenge_method: 'S256',
});
// At the callback:
const tokens = await client.authorizationCodeGrant(config, currentUrl, {
  pkceCodeVerifier: code_verifier,
  idTokenExpected: true,
});`;

const oauth4webapi = (v: SnippetValues) => `import * as oauth from 'oauth4webapi';

const issuer = new URL('${v.issuer}');
const as = await oauth
  .discoveryRequest(issuer)
  .then((response) => oauth.processDiscoveryResponse(issuer, response));
const client = { client_id: '${v.clientId}' };
const clientAuth = ${v.confidential ? `oauth.ClientSecretPost(${SECRET})` : 'oauth.None()'};
const redirectUri = '${v.redirectUri}';
// PKCE: keep code_verifier in the user's session until the callback.
const code_verifier = oauth.generateRandomCodeVerifier();
const url = new URL(as.authorization_endpoint);
url.search = new URLSearchParams({
  response_type: 'code',
  client_id: client.client_id,
  redirect_uri: redirectUri,
  scope: '${v.scope}',
  code_challenge: await oauth.calculatePKCECodeChallenge(code_verifier),
  code_challenge_method: 'S256',
}).toString();
// At the callback:
const params = oauth.validateAuthResponse(as, client, currentUrl);
const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, code_verifier);
const result = await oauth.processAuthorizationCodeResponse(as, client, response, { requireIdToken: true });`;

const authJs = (v: SnippetValues) => `// auth.ts (Auth.js / NextAuth v5)
import NextAuth from 'next-auth';

export const { handlers, auth, signIn, signOut } = NextAuth({
  providers: [
    {
      id: 'gatehouse',
      name: 'Gatehouse',
      type: 'oidc',
      issuer: '${v.issuer}',
      clientId: '${v.clientId}',
      ${v.confidential ? `clientSecret: ${SECRET},\n      client: { token_endpoint_auth_method: 'client_secret_post' },` : `client: { token_endpoint_auth_method: 'none' },`}
      checks: ['pkce', 'state'],
      authorization: { params: { scope: '${v.scope}' } },
    },
  ],
});
// Register this redirect URI: ${v.redirectUri} (Auth.js uses /api/auth/callback/gatehouse).`;

const expressOpenidConnect = (v: SnippetValues) => {
  const callback = new URL(v.redirectUri);
  return `import { auth } from 'express-openid-connect';

app.use(
  auth({
    issuerBaseURL: '${v.issuer}',
    baseURL: '${callback.origin}',
    clientID: '${v.clientId}',
    ${v.confidential ? `clientSecret: ${SECRET},\n    clientAuthMethod: 'client_secret_post',` : `clientAuthMethod: 'none',`}
    secret: process.env.SESSION_SECRET,
    authRequired: false,
    routes: { callback: '${callback.pathname}' },
    authorizationParams: { response_type: 'code', scope: '${v.scope}' },
    // GET /logout signs out at Gatehouse too; register ${callback.origin}/ as a post-logout redirect URI.
    idpLogout: true,
  }),
);`;
};

const oidcClientTs = (v: SnippetValues) => `import { UserManager } from 'oidc-client-ts';

// A browser app is a public client: no secret, PKCE S256 (oidc-client-ts does it by default).
const userManager = new UserManager({
  authority: '${v.issuer}',
  client_id: '${v.clientId}',
  redirect_uri: '${v.redirectUri}',
  response_type: 'code',
  scope: '${v.scope}',
  // Name and email come from userinfo: the ID token carries the sign-in, not the profile.
  loadUserInfo: true,
  // signoutRedirect() revokes the tokens, ends the Gatehouse session and returns here (a registered post-logout URI).
  post_logout_redirect_uri: '${v.postLogoutRedirectUri}',
  revokeTokensOnSignout: true,
});
await userManager.signinRedirect();
// At the callback:
const user = await userManager.signinRedirectCallback();
// With offline_access, signinSilent() renews the tokens with the refresh token.`;

/** The snippets that fit the client: server libraries for web clients, the browser library for browser clients. */
export function snippetsFor(v: SnippetValues, kind: Client['kind']): Snippet[] {
  const server: Snippet[] = [
    { library: 'openid-client', code: openidClient(v) },
    { library: 'oauth4webapi', code: oauth4webapi(v) },
    { library: 'Auth.js', code: authJs(v) },
    { library: 'express-openid-connect', code: expressOpenidConnect(v) },
  ];
  if (kind === 'browser') return [{ library: 'oidc-client-ts', code: oidcClientTs(v) }, server[1] as Snippet];
  if (kind === 'native') return [server[1] as Snippet, server[0] as Snippet];
  return server;
}
