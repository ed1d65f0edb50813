// The OAuth/OIDC endpoints' request parameters and answers, for the published contract (src/openapi/). The handlers
// parse their query and form parameters themselves (form.ts: RFC 6749 codes, repeated parameters refused), so these
// document and are not what Fastify validates with; the answers are what the handlers send.

import { errorResponses } from '../http/error-responses.ts';
import { Type } from '../schema/type.ts';

const text = (description: string) => Type.Optional(Type.String({ description }));
const form = (properties: Type.TProperties) => Type.Object(properties, { additionalProperties: true });
const answer = <T extends Type.TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });

/** Client authentication's form parameters (client-auth.ts): client_secret_post, private_key_jwt or a public client. */
const clientAuthentication = {
  client_id: text('The client id (every client sends it with client_secret_post or as a public client).'),
  client_secret: text('client_secret_post: the client secret.'),
  client_assertion: text('private_key_jwt (RFC 7523): a JWT signed with one of the client keys.'),
  client_assertion_type: text('urn:ietf:params:oauth:client-assertion-type:jwt-bearer with client_assertion.'),
};

const authorizationParameters = {
  response_type: text('code (the only response type).'),
  client_id: text('The client id.'),
  redirect_uri: text('One of the client redirect URIs, exactly (loopback: any port).'),
  scope: text('Space-separated scopes.'),
  state: text('Echoed back to the redirect URI.'),
  nonce: text('Put into the ID token.'),
  code_challenge: text('PKCE S256 challenge (required).'),
  code_challenge_method: text('S256 (required).'),
  prompt: text('none, login or consent.'),
  max_age: text('Seconds since the last sign-in before a new one is required.'),
  login_hint: text('Prefills the sign-in form.'),
  acr_values: text('aal1 or aal2.'),
  resource: text('RFC 8707 resource indicator (may repeat).'),
  request_uri: text('RFC 9126: the request_uri from the pushed authorization request endpoint.'),
  dpop_jkt: text('RFC 9449 §10: the JWK thumbprint of the DPoP key the code may only be exchanged with.'),
};

export const AuthorizeQuery = form(authorizationParameters);

export const TokenForm = form({
  grant_type: Type.String({
    description:
      'authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:token-exchange (RFC 8693) or urn:ietf:params:oauth:grant-type:device_code (RFC 8628).',
  }),
  ...clientAuthentication,
  code: text('authorization_code: the code.'),
  redirect_uri: text('authorization_code: the redirect URI the authorization request named.'),
  code_verifier: text('authorization_code: the PKCE verifier.'),
  refresh_token: text('refresh_token: the refresh token (rotated on use).'),
  scope: text('refresh_token, client_credentials, token exchange: the scopes wanted.'),
  resource: text('RFC 8707 resource indicator; token exchange: the API the new token is for.'),
  subject_token: text('token exchange: the access token to exchange.'),
  subject_token_type: text('token exchange: urn:ietf:params:oauth:token-type:access_token.'),
  audience: text('token exchange (RFC 8693 §2.1): the API the new token is for, as resource names it.'),
  device_code: text('device_code (RFC 8628 §3.4): the device code from the device authorization endpoint.'),
  requested_token_type: text('token exchange: urn:ietf:params:oauth:token-type:access_token, the only one issued.'),
  actor_token: text('token exchange: not supported (the authenticated client is the actor); refused.'),
  actor_token_type: text('token exchange: not supported; refused.'),
});

export const TokenAnswer = answer({
  access_token: Type.String(),
  token_type: Type.Union([Type.Literal('Bearer'), Type.Literal('DPoP')]),
  expires_in: Type.Integer(),
  scope: Type.String(),
  id_token: Type.Optional(Type.String()),
  refresh_token: Type.Optional(Type.String()),
  issued_token_type: Type.Optional(
    Type.String({ description: 'Token exchange (RFC 8693 §2.2.1): urn:ietf:params:oauth:token-type:access_token.' }),
  ),
});

export const TokenErrors = errorResponses(
  'invalid_client',
  // RFC 8628 §3.5: the device code grant's polling answers.
  'authorization_pending',
  'slow_down',
  'expired_token',
  ['access_denied', 400],
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'rate_limited',
);

export const UserinfoAnswer = Type.Object(
  {
    sub: Type.String(),
    name: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    email_verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const UserinfoErrors = errorResponses(
  'invalid_token',
  'insufficient_scope',
  ['invalid_dpop_proof', 401],
  ['use_dpop_nonce', 401],
);

export const TokenParameterForm = form({
  ...clientAuthentication,
  token: Type.String({ description: 'The token.' }),
  token_type_hint: text('access_token or refresh_token.'),
});

export const IntrospectionAnswer = Type.Object(
  {
    active: Type.Boolean(),
    scope: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    sub: Type.Optional(Type.String()),
    iss: Type.Optional(Type.String()),
    aud: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    exp: Type.Optional(Type.Integer()),
    iat: Type.Optional(Type.Integer()),
    jti: Type.Optional(Type.String()),
    token_type: Type.Optional(Type.String()),
  },
  { additionalProperties: true, description: 'RFC 7662 §2.2; an active access token adds its other claims.' },
);

export const ClientErrors = errorResponses('invalid_client', 'rate_limited');
export const RevocationErrors = errorResponses('invalid_client', 'unauthorized_client', 'rate_limited');

export const ParForm = form({ ...clientAuthentication, ...authorizationParameters });
export const ParAnswer = answer({ request_uri: Type.String(), expires_in: Type.Integer() });
export const ParErrors = errorResponses(
  'invalid_client',
  'unauthorized_client',
  'unsupported_response_type',
  'invalid_scope',
  'invalid_target',
  'request_not_supported',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'rate_limited',
);

export const LogoutParameters = form({
  id_token_hint: text('An ID token this issuer issued to the relying party.'),
  client_id: text('The relying party.'),
  post_logout_redirect_uri: text('Where to go after sign-out: one of the client post-logout redirect URIs.'),
  state: text('Echoed to post_logout_redirect_uri.'),
});

export const ConsentForm = form({
  request: Type.String({ description: 'The authorization request, as the consent page carries it.' }),
  csrf: Type.String({ description: "The consent page's token." }),
  decision: Type.Optional(Type.String({ description: 'allow or deny.' })),
});

export const DiscoveryAnswer = Type.Object(
  { issuer: Type.String(), jwks_uri: Type.String() },
  { additionalProperties: true, description: 'OpenID Connect Discovery 1.0 §3 metadata.' },
);

export const JwksAnswer = answer({
  keys: Type.Array(
    Type.Object(
      {
        kty: Type.Literal('RSA'),
        kid: Type.String(),
        n: Type.String(),
        e: Type.String(),
        use: Type.Literal('sig'),
        alg: Type.Literal('RS256'),
      },
      { additionalProperties: false },
    ),
  ),
});

/** RFC 8628 §3.1: the device authorization request. */
export const DeviceAuthorizationForm = form({
  ...clientAuthentication,
  scope: text('Space-separated scopes, as at the authorization endpoint.'),
  resource: text('RFC 8707 resource indicator: the API the tokens are for.'),
});
/** RFC 8628 §3.2. */
export const DeviceAuthorizationAnswer = answer({
  device_code: Type.String({ description: 'Opaque; the device polls the token endpoint with it.' }),
  user_code: Type.String({ description: 'Eight letters shown as XXXX-XXXX, for the person to type on /device.' }),
  verification_uri: Type.String({ description: 'The page where the person approves: {issuer}/device.' }),
  verification_uri_complete: Type.String({
    description: 'The same page with the user code filled in (for a QR code).',
  }),
  expires_in: Type.Integer({ description: 'Seconds the codes live.' }),
  interval: Type.Integer({ description: 'Seconds to wait between polls.' }),
});
export const DeviceAuthorizationErrors = errorResponses(
  'invalid_client',
  'unauthorized_client',
  'invalid_scope',
  'invalid_target',
  'rate_limited',
);
