// OpenID Connect providers (the generic one by discovery, and Google, GitLab and Slack, which are plain OIDC), through
// openid-client: authorization code with PKCE S256 (RFC 7636), state and nonce checked, `iss` in the authorization
// response checked where the provider advertises it (RFC 9207), the ID token validated per OIDC Core §3.1.3.7
// (signature against the provider's JWKS, iss equal to the discovered issuer, aud, exp, nonce).
import * as client from 'openid-client';
import type { CallbackParameters, ExternalProfile, ProviderFlow, RoundTrip } from './provider.ts';

export interface OidcOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  redirectUri: string;
  /** Extra authorization request parameters a provider needs (e.g. Apple's response_mode=form_post). */
  extraParameters?: Record<string, string>;
}

/** Loopback http upstreams are allowed for development and tests; validation refuses http anywhere else. */
const isLoopbackHttp = (url: URL) =>
  url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);

/**
 * Discovery runs on first use and is kept; a failed discovery is forgotten so the next sign-in tries again (the
 * provider may have been down). The discovered issuer must equal the configured one (OIDC Discovery §4.3): openid-client
 * refuses a document that names another.
 */
export function discoverLazily(options: OidcOptions): () => Promise<client.Configuration> {
  let pending: Promise<client.Configuration> | null = null;
  return () => {
    pending ??= discover(options).catch((error: unknown) => {
      pending = null;
      throw error;
    });
    return pending;
  };
}

async function discover(options: OidcOptions): Promise<client.Configuration> {
  const issuer = new URL(options.issuer);
  const execute = isLoopbackHttp(issuer) ? [client.allowInsecureRequests] : [];
  const found = await client.discovery(issuer, options.clientId, undefined, undefined, { execute, timeout: 10 });
  const methods = found.serverMetadata().token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
  // RFC 8414 §2: an absent list means client_secret_basic; use post only when basic is not offered.
  // An empty secret is Apple's case: its flow signs a fresh client secret for each token request instead.
  const auth =
    options.clientSecret === ''
      ? client.None()
      : methods.includes('client_secret_basic')
        ? client.ClientSecretBasic(options.clientSecret)
        : client.ClientSecretPost(options.clientSecret);
  const configuration = new client.Configuration(found.serverMetadata(), options.clientId, undefined, auth);
  for (const extension of execute) extension(configuration);
  // Without this, openid-client may rely on TLS alone for an ID token from the token endpoint (OIDC Core §3.1.3.7
  // allows it); the issue asks for the signature to be verified, and it costs one cached JWKS fetch.
  client.enableNonRepudiationChecks(configuration);
  return configuration;
}

export function oidcFlow(options: OidcOptions): ProviderFlow {
  const configuration = discoverLazily(options);
  return {
    async authorizationUrl(trip: RoundTrip) {
      return client.buildAuthorizationUrl(await configuration(), {
        redirect_uri: options.redirectUri,
        scope: [...new Set(['openid', ...options.scopes])].join(' '),
        state: trip.state,
        nonce: trip.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(trip.codeVerifier),
        code_challenge_method: 'S256',
        ...options.extraParameters,
      });
    },
    async complete(callback: CallbackParameters, trip: RoundTrip) {
      const config = await configuration();
      const tokens = await client.authorizationCodeGrant(config, callbackInput(options.redirectUri, callback), {
        pkceCodeVerifier: trip.codeVerifier,
        expectedState: trip.state,
        expectedNonce: trip.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('no ID token');
      // OIDC Core §5.4: with an access token, the scope's claims (email, name) may be at the UserInfo endpoint only.
      // Its answer must be about the ID token's subject (§5.3.2); openid-client checks that.
      if (typeof claims.email === 'string' || !config.serverMetadata().userinfo_endpoint) return profileOf(claims);
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      return profileOf({
        ...claims,
        email: info.email,
        email_verified: info.email_verified,
        name: claims.name ?? info.name,
      });
    },
  };
}

/** openid-client reads a GET callback from its URL and a form_post one from a POST request's body. */
export function callbackInput(redirectUri: string, callback: CallbackParameters): URL | Request {
  if (callback.method === 'GET') return new URL(`${redirectUri}?${callback.params}`);
  return new Request(redirectUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: callback.params.toString(),
  });
}

const text = (value: unknown) => (typeof value === 'string' ? value : null);

export function profileOf(claims: client.IDToken): ExternalProfile {
  const email = text(claims.email);
  return {
    subject: claims.sub,
    email,
    // Only an explicit true counts (OIDC Core §5.1): a missing claim says nothing about who owns the address.
    emailVerified: email !== null && claims.email_verified === true,
    name: text(claims.name) ?? text(claims.preferred_username) ?? email ?? '',
    amr: Array.isArray(claims.amr) ? claims.amr.filter((v): v is string => typeof v === 'string') : [],
    acr: text(claims.acr),
  };
}
