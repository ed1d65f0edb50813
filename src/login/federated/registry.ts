// The redirect providers this instance offers, built once from configuration: each enabled, non-deferred provider
// whose kind has a flow in this version. The client secret is read from its file in secrets.dir here, at startup.

import { createPrivateKey } from 'node:crypto';
import {
  genericProviderState,
  providerSecretFile,
  providerState,
  type RedirectProviderId,
  readProviderSecret,
} from '../../config/provider-state.ts';
import type { Config } from '../../config/schema.ts';
import type { OidcOptions } from './oidc.ts';
import type { FederatedProvider, ProviderFlow } from './provider.ts';

/**
 * A provider's flow whose module, and the client library under it (openid-client, oauth4webapi, jose), is imported at
 * the first sign-in that uses it: a node with no redirect provider enabled never loads them (docs/decisions.md
 * "Smaller processes").
 */
function lazyFlow(load: () => Promise<ProviderFlow>): ProviderFlow {
  let flow: Promise<ProviderFlow> | null = null;
  const loaded = () => {
    flow ??= load();
    return flow;
  };
  return {
    authorizationUrl: async (trip) => (await loaded()).authorizationUrl(trip),
    complete: async (callback, trip) => (await loaded()).complete(callback, trip),
  };
}

const oidcFlow = (options: OidcOptions) => lazyFlow(async () => (await import('./oidc.ts')).oidcFlow(options));

/** The shared callback (SPEC.md "Shared redirect-provider callback"), registered exactly so at every provider. */
export const CALLBACK_PATH = '/auth/federated/callback';
export const callbackUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}${CALLBACK_PATH}`;

interface Credentials {
  issuer: string;
  clientId: string;
  /** The secret file's content: a client secret, or Apple's private key. */
  clientSecret: string;
  redirectUri: string;
  config: Config;
}

/** Named selections with a flow in this version, each built from its issuer and credentials. */
const NAMED_FLOWS: Partial<Record<RedirectProviderId, (c: Credentials) => ProviderFlow>> = {
  google: (c) => oidcFlow({ ...c, scopes: ['openid', 'email', 'profile'] }),
  gitlab: (c) => oidcFlow({ ...c, scopes: ['openid', 'email', 'profile'] }),
  slack: (c) => oidcFlow({ ...c, scopes: ['openid', 'email', 'profile'] }),
  microsoft: (c) => lazyFlow(async () => (await import('./microsoft.ts')).microsoftFlow(c)),
  github: (c) => lazyFlow(async () => (await import('./github.ts')).githubFlow({ ...c, base: c.issuer })),
  discord: (c) => lazyFlow(async () => (await import('./discord.ts')).discordFlow({ ...c, base: c.issuer })),
  apple: (c) => {
    // The key is read now, so an unusable provider-apple.p8 stops the start as before, not the first sign-in.
    createPrivateKey(c.clientSecret);
    return lazyFlow(async () =>
      (await import('./apple.ts')).appleFlow({
        ...c,
        teamId: c.config.providers.apple.team_id,
        keyId: c.config.providers.apple.key_id,
        privateKeyPem: c.clientSecret,
      }),
    );
  },
};

export const NAMED_PROVIDER_NAMES: Record<RedirectProviderId, string> = {
  google: 'Google',
  github: 'GitHub',
  gitlab: 'GitLab',
  microsoft: 'Microsoft',
  apple: 'Apple',
  discord: 'Discord',
  slack: 'Slack',
};

/** Whether this version can sign in with a named selection (the others stay configuration only). */
export const hasFlow = (id: RedirectProviderId) => NAMED_FLOWS[id] !== undefined;

export type ProviderRegistry = ReadonlyMap<string, FederatedProvider>;

function secretOf(config: Config, id: string): string {
  const read = readProviderSecret(config.secrets.dir, providerSecretFile(id));
  // providerState said enabled, so the file was readable a moment ago.
  if (!('value' in read)) throw new Error(`provider ${id}: secret file ${read.file} is ${read.problem}`);
  return read.value;
}

export function buildProviderRegistry(config: Config): ProviderRegistry {
  const redirectUri = callbackUrl(config.server.issuer);
  const providers = new Map<string, FederatedProvider>();
  for (const [id, build] of Object.entries(NAMED_FLOWS) as [RedirectProviderId, (c: Credentials) => ProviderFlow][]) {
    if (providerState(config, id).state !== 'enabled') continue;
    const settings = config.providers[id];
    const credentials = { issuer: settings.issuer, clientId: settings.client_id, clientSecret: secretOf(config, id) };
    let flow: ProviderFlow;
    try {
      flow = build({ ...credentials, redirectUri, config });
    } catch (error) {
      // e.g. provider-apple.p8 is not a PEM private key: say which provider and file, not just "invalid key".
      throw new Error(`provider ${id}: ${providerSecretFile(id)} cannot be used (${(error as Error).message})`);
    }
    providers.set(id, { id, name: NAMED_PROVIDER_NAMES[id], trustUpstreamMfa: settings.trust_upstream_mfa, flow });
  }
  for (const settings of config.providers.oidc) {
    if (genericProviderState(config, settings.id).state !== 'enabled') continue;
    providers.set(settings.id, {
      id: settings.id,
      name: settings.name,
      trustUpstreamMfa: settings.trust_upstream_mfa,
      flow: oidcFlow({
        issuer: settings.issuer,
        clientId: settings.client_id,
        clientSecret: secretOf(config, settings.id),
        scopes: settings.scopes,
        redirectUri,
      }),
    });
  }
  return providers;
}
