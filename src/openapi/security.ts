// The ways a caller proves who it is, as OpenAPI security schemes (OpenAPI 3.1 §4.8.27). Routes name them in
// `schema.security` (src/http/route-schema.ts); the document declares all of them once.
import type { OIDC_SCOPES } from '../clients/scopes.ts';

/** Typed by the scopes Gatehouse knows, so a new scope fails typecheck until it is described here. */
const SCOPES: Record<(typeof OIDC_SCOPES)[number], string> = {
  openid: 'Sign the user in (an ID token).',
  profile: 'The name claim.',
  email: 'The email and email_verified claims.',
  offline_access: 'A refresh token.',
};

export function securitySchemes(issuer: string) {
  return {
    session: {
      type: 'apiKey',
      in: 'cookie',
      name: '__Host-gatehouse_session',
      description:
        'The browser session set at sign-in (HttpOnly, Secure, SameSite=Lax). Plain-HTTP development on localhost ' +
        'names it gatehouse_session. State-changing requests also need a JSON body and a same-origin Origin or ' +
        'Sec-Fetch-Site (403 csrf_rejected otherwise).',
    },
    accessToken: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'An access token from the token endpoint (RFC 9068 JWT), in the Authorization header only (RFC 6750 §2.1).',
    },
    dpopAccessToken: {
      type: 'http',
      scheme: 'DPoP',
      description: 'A DPoP-bound access token with its proof in the DPoP header (RFC 9449 §7).',
    },
    clientAuthentication: {
      type: 'oauth2',
      description:
        'OAuth clients authenticate in the form body: client_secret_post (client_id and client_secret), ' +
        'private_key_jwt (client_assertion, RFC 7523), or client_id alone for public clients. HTTP Basic is refused. ' +
        'The flows name the endpoints where clients obtain tokens.',
      flows: {
        authorizationCode: {
          authorizationUrl: `${issuer}/oauth/authorize`,
          tokenUrl: `${issuer}/oauth/token`,
          refreshUrl: `${issuer}/oauth/token`,
          scopes: SCOPES,
        },
        clientCredentials: { tokenUrl: `${issuer}/oauth/token`, scopes: {} },
      },
    },
    metricsToken: {
      type: 'http',
      scheme: 'bearer',
      description: 'The metrics bearer token (the secret file metrics-bearer.token), for Prometheus.',
    },
  };
}
