// An app with every optional part configured at once, for tests that sweep the whole surface: the gateway in front
// of the echo upstream with a route policy, redirect providers (GitHub and Discord stand-ins, a generic OpenID
// Connect stand-in), a SAML connection, both web3 providers (the Farcaster relay stand-in), self-service with the
// development mailbox for delivery. Stand-ins answer locally, so no request leaves the machine.
import { after } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import { databaseWithOrganization, policy } from '../gateway/fixtures.ts';
import { startApiStandIn } from './api-stand-in.ts';
import { startTestApp, type TestApp } from './app.ts';
import { genericOidc, makeConfig } from './config.ts';
import { startRelayStandIn } from './farcaster-relay.ts';
import { plainDiscovery, startStandIn } from './oidc-stand-in.ts';
import { providerSecretsDir } from './provider-secrets.ts';
import { makeKeyPair, startTestIdp } from './saml-idp.ts';
import { samlConnection } from './saml-sp.ts';
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
  const oidc = await startStandIn((base) => ({ '': plainDiscovery(base) }));
  const relay = await startRelayStandIn();
  const sp = makeKeyPair('sp');
  // A real IdP on loopback (the sweep does not follow the sign-in redirect to it, but the connection points there).
  const idp = await startTestIdp({ spCert: sp.cert, person: () => ({ nameId: 'someone', attributes: {} }) });
  after(() => idp.stop());
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
  config.saml = { [samlId]: samlConnection(idp, { mfa_authn_contexts: [] }) };
  // The gateway's organization must exist before the app starts (it refuses to start otherwise).
  const { sql } = await databaseWithOrganization();
  // Listening: the gateway answers on the server's socket, ahead of Fastify (test/helpers/over-socket.ts).
  const t = await startTestApp({ config, sql, listen: true });
  return { t, upstream, samlId };
}
