// Sign in with Apple: OpenID Connect with three differences. The client secret is a short-lived ES256 JWT the
// service signs with the operator's private key (iss team id, sub client id, aud Apple's issuer, kid key id); asking
// for name or email requires response_mode=form_post, so Apple returns by a cross-site POST to the shared callback;
// and the person's name arrives only on the first sign-in, as a `user` JSON form field beside the code (never in
// the ID token). The ID token is validated like any other (openid-client: signature, iss, aud, exp, nonce).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import * as client from 'openid-client';
import { callbackInput, discoverLazily, type OidcOptions, profileOf } from './oidc.ts';
import type { CallbackParameters, ExternalProfile, ProviderFlow, RoundTrip } from './provider.ts';

export interface AppleOptions {
  issuer: string;
  clientId: string;
  teamId: string;
  keyId: string;
  /** The .p8 private key (PKCS #8 PEM, P-256) from provider-apple.p8. */
  privateKeyPem: string;
  redirectUri: string;
}

/** Apple accepts up to six months; minutes are enough for one token request, and a leaked one soon expires. */
const CLIENT_SECRET_SECONDS = 300;

export function appleClientSecret(o: AppleOptions, key: KeyObject, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: o.keyId })
    .setIssuer(o.teamId)
    .setSubject(o.clientId)
    .setAudience(o.issuer)
    .setIssuedAt(iat)
    .setExpirationTime(iat + CLIENT_SECRET_SECONDS)
    .sign(key);
}

export function appleFlow(o: AppleOptions): ProviderFlow {
  const key = createPrivateKey(o.privateKeyPem);
  const options: OidcOptions = {
    issuer: o.issuer,
    clientId: o.clientId,
    clientSecret: '',
    scopes: ['name', 'email'],
    redirectUri: o.redirectUri,
  };
  const discovered = discoverLazily(options);
  return {
    async authorizationUrl(trip: RoundTrip) {
      return client.buildAuthorizationUrl(await discovered(), {
        redirect_uri: o.redirectUri,
        scope: 'openid name email',
        response_mode: 'form_post',
        state: trip.state,
        nonce: trip.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(trip.codeVerifier),
        code_challenge_method: 'S256',
      });
    },
    async complete(callback: CallbackParameters, trip: RoundTrip): Promise<ExternalProfile> {
      const found = await discovered();
      // A fresh client secret per token request, so no long-lived one ever exists.
      const auth = client.ClientSecretPost(await appleClientSecret(o, key));
      const config = new client.Configuration(found.serverMetadata(), o.clientId, undefined, auth);
      if (new URL(o.issuer).protocol === 'http:') client.allowInsecureRequests(config);
      client.enableNonRepudiationChecks(config);
      const params = new URLSearchParams(callback.params);
      const user = firstSignInName(params.get('user'));
      params.delete('user');
      const tokens = await client.authorizationCodeGrant(
        config,
        callbackInput(o.redirectUri, { ...callback, params }),
        {
          pkceCodeVerifier: trip.codeVerifier,
          expectedState: trip.state,
          expectedNonce: trip.nonce,
          idTokenExpected: true,
        },
      );
      const claims = tokens.claims();
      if (!claims) throw new Error('no ID token');
      // Apple sends email_verified as the string "true" (and private relay addresses are verified relays).
      const verified = claims.email_verified === true || claims.email_verified === 'true';
      const profile = profileOf({ ...claims, email_verified: verified });
      return { ...profile, name: user ?? profile.name };
    },
  };
}

/** The `user` field of Apple's first form_post: {"name":{"firstName","lastName"},"email"}; only the name is used. */
function firstSignInName(value: string | null): string | null {
  if (!value) return null;
  try {
    const parsed = JSON.parse(value) as { name?: { firstName?: unknown; lastName?: unknown } };
    const parts = [parsed.name?.firstName, parsed.name?.lastName].filter(
      (p): p is string => typeof p === 'string' && p.trim() !== '',
    );
    return parts.length > 0 ? parts.join(' ').slice(0, 200) : null;
  } catch {
    return null;
  }
}
