// GET /.well-known/openid-configuration (OIDC Discovery 1.0 §3, RFC 8414) and GET /.well-known/jwks.json. Both
// are public and cacheable; the JWKS briefly, so a rotation reaches clients within minutes.
import type { FastifyInstance } from 'fastify';
import { OIDC_SCOPES } from '../clients/scopes.ts';
import { ASSERTION_ALGORITHMS } from './client-assertion.ts';
import { corsHeaders } from './cors.ts';
import { DPOP_ALGORITHMS } from './dpop-signature.ts';
import { grantTypes } from './grants/index.ts';
import type { Keyring } from './keyring.ts';
import { DiscoveryAnswer, JwksAnswer } from './route-schemas.ts';

export const ACR_VALUES = ['aal1', 'aal2'];

export function discoveryDocument(issuer: string) {
  const at = (path: string) => `${issuer}${path}`;
  return {
    issuer,
    authorization_endpoint: at('/oauth/authorize'),
    token_endpoint: at('/oauth/token'),
    userinfo_endpoint: at('/oauth/userinfo'),
    introspection_endpoint: at('/oauth/introspect'),
    revocation_endpoint: at('/oauth/revoke'),
    // RFC 9126 §5: PAR is offered to every client and required of those registered so (per client, §6).
    pushed_authorization_request_endpoint: at('/oauth/par'),
    require_pushed_authorization_requests: false,
    end_session_endpoint: at('/oauth/logout'),
    // RFC 8628 §4: offered to the clients an administrator allowed the grant.
    device_authorization_endpoint: at('/oauth/device_authorization'),
    jwks_uri: at('/.well-known/jwks.json'),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: grantTypes,
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'private_key_jwt'],
    // RFC 8414 §2: the algorithms a private_key_jwt assertion may use.
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    introspection_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt'],
    introspection_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'private_key_jwt'],
    revocation_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    scopes_supported: [...OIDC_SCOPES],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'acr',
      'amr',
      'azp',
      'at_hash',
      'sid',
      'name',
      'email',
      'email_verified',
    ],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    acr_values_supported: ACR_VALUES,
    prompt_values_supported: ['none', 'login', 'consent'],
    authorization_response_iss_parameter_supported: true,
    // OIDC Back-Channel Logout 1.0 §2.1: logout tokens always carry sid.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    // RFC 9449 §5.1.
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
  };
}

export async function discoveryRoutes(app: FastifyInstance, deps: { issuer: string; keyring: Keyring }) {
  const document = discoveryDocument(deps.issuer);
  const discovery = {
    summary: 'OpenID Connect Discovery 1.0 metadata (also RFC 8414)',
    tags: ['oauth'],
    response: { 200: DiscoveryAnswer },
  };
  app.get('/.well-known/openid-configuration', { onSend: corsHeaders, schema: discovery }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=3600').send(document),
  );
  const jwks = {
    summary: 'The public keys ID and access tokens are signed with',
    tags: ['oauth'],
    response: { 200: JwksAnswer },
  };
  app.get('/.well-known/jwks.json', { onSend: corsHeaders, schema: jwks }, async (_request, reply) =>
    reply.header('cache-control', 'public, max-age=300').send(await deps.keyring.jwks()),
  );
}
