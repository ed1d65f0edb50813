// An app with every optional part configured at once, for tests that sweep the whole surface: the gateway in front
// of the echo upstream with a route policy, redirect providers (GitHub and Discord stand-ins, a generic OpenID
// Connect stand-in), a SAML connection, both web3 providers (the Farcaster relay stand-in), self-service with the
// development mailbox for delivery. Stand-ins answer locally, so no request leaves the machine.
import type { Config } from '../../src/config/schema.ts';
import { databaseWithOrganization, policy } from '../gateway/fixtures.ts';
import { startApiStandIn } from './api-stand-in.ts';
import { startTestApp, type TestApp } from './app.ts';
import { genericOidc, makeConfig } from './config.ts';
import { startRelayStandIn } from './farcaster-relay.ts';
import { startStandIn } from './oidc-stand-in.ts';
import { providerSecretsDir } from './provider-secrets.ts';
import { makeKeyPair } from './saml-idp.ts';
import { startUpstream, type Upstream } from './upstream.ts';

export interface FullApp {
  t: TestApp;
  upstream: Upstream;
  /** The configured SAML connection's id. */
  samlId: string;
}

export async function startFullApp(): Promise<FullApp> {
  const upstream = await startUpstream();
  const api = await startApiStandIn({});
  const oidc = await startStandIn((base) => ({
    '': {
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      jwks_uri: `${base}/keys`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    },
  }));
  const relay = await startRelayStandIn();
  const sp = makeKeyPair('sp');
  const idp = makeKeyPair('idp');
  const samlId = 'corp';
  const secretsDir = providerSecretsDir({
    github: 'github-secret-1',
    discord: 'discord-secret-1',
    corp: 'corp-secret-1',
    [`saml-${samlId}.key`]: sp.key,
    [`saml-${samlId}.crt`]: sp.cert,
  });
  const config: Config = makeConfig({
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox' },
    secrets: { dir: secretsDir },
    gateway: { enabled: true, route_prefix: '/app', upstream_port: upstream.port },
    auth: {
      enabled: true,
      provider_id: 'gatehouse',
      organization_id: 'acme',
      protected_route_prefix: '/app/p',
      route_policies: [policy({ path_prefix: '/app/p/api', methods: ['GET', 'POST'], required_scope: 'read' })],
    },
    providers: {
      github: { enabled: true, client_id: 'Iv1.gatehouse', issuer: api.base },
      discord: { enabled: true, client_id: '1100220033', issuer: api.base },
      oidc: [genericOidc({ id: 'corp', issuer: oidc.base })],
      ethereum: { enabled: true, chain_ids: [1, 10] },
      // rpc_url is only asked about a message the relay completed, which no request here does.
      farcaster: { enabled: true, relay_url: relay.url, rpc_url: 'http://127.0.0.1:9' },
    },
  });
  config.saml = {
    [samlId]: {
      name: 'Corp SSO',
      idp_metadata_file: '',
      idp_metadata_url: '',
      idp_metadata_refresh_seconds: 3600,
      idp_entity_id: 'https://idp.corp.example/',
      idp_sso_url: 'https://idp.corp.example/sso',
      idp_certificate_files: [idp.certFile],
      email_domains: ['corp.example'],
      display_name_attribute: 'displayName',
      email_attribute: 'email',
      sign_up: true,
      mfa_authn_contexts: [],
    },
  };
  // The gateway's organization must exist before the app starts (it refuses to start otherwise).
  const { sql } = await databaseWithOrganization();
  const t = await startTestApp({ config, sql });
  return { t, upstream, samlId };
}
