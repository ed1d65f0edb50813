// Providers that are OAuth 2 without OpenID Connect (GitHub, Discord): authorization code with PKCE S256 and state
// through oauth4webapi, then the provider's user API with the access token over TLS. No ID token exists, so the
// account is whatever that API says; its stable numeric id is the subject, never a login name or an email.
import * as oauth from 'oauth4webapi';
import type { CallbackParameters, ExternalProfile, ProviderFlow, RoundTrip } from './provider.ts';

export interface OAuth2Endpoints {
  authorization: string;
  token: string;
  scope: string;
}

export interface OAuth2Options {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  endpoints: OAuth2Endpoints;
  /** Reads the account from the provider's API with the access token. */
  profile(get: (url: string) => Promise<unknown>): Promise<ExternalProfile>;
}

const TIMEOUT_MS = 10_000;

export function oauth2Flow(options: OAuth2Options): ProviderFlow {
  const { endpoints } = options;
  const insecure = new URL(endpoints.token).protocol === 'http:';
  // No discovery: the issuer is only an identifier here; these providers send no `iss` (RFC 9207) to compare.
  const as: oauth.AuthorizationServer = {
    issuer: new URL(endpoints.authorization).origin,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
  };
  const client: oauth.Client = { client_id: options.clientId };
  const auth = oauth.ClientSecretPost(options.clientSecret);
  return {
    async authorizationUrl(trip: RoundTrip) {
      const url = new URL(endpoints.authorization);
      url.search = new URLSearchParams({
        client_id: options.clientId,
        response_type: 'code',
        redirect_uri: options.redirectUri,
        scope: endpoints.scope,
        state: trip.state,
        code_challenge: await oauth.calculatePKCECodeChallenge(trip.codeVerifier),
        code_challenge_method: 'S256',
      }).toString();
      return url;
    },
    async complete(callback: CallbackParameters, trip: RoundTrip) {
      const params = oauth.validateAuthResponse(as, client, callback.params, trip.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        options.redirectUri,
        trip.codeVerifier,
        { [oauth.allowInsecureRequests]: insecure, signal: AbortSignal.timeout(TIMEOUT_MS) },
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
      const get = async (url: string) => {
        const answer = await fetch(url, {
          headers: {
            authorization: `Bearer ${tokens.access_token}`,
            accept: 'application/json',
            'user-agent': 'Gatehouse',
          },
          redirect: 'error',
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
        if (!answer.ok) throw new Error(`${new URL(url).pathname} answered ${answer.status}`);
        return (await answer.json()) as unknown;
      };
      return options.profile(get);
    },
  };
}

/** A value from an API answer that must be there, as a string (numeric ids included). */
export function requiredId(value: unknown, what: string): string {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && /^[0-9]{1,32}$/.test(value)) return value;
  throw new Error(`user API answer without a valid ${what}`);
}

export const optionalText = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
