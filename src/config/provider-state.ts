// Whether each sign-in provider is in use, the one place that decides it: off (not enabled), deferred (SPEC.md
// "External sign-in providers": a placeholder credential or relay host means "configure later"; reported, never used)
// or enabled. Validation, the status report, GET /auth/providers and the federated flows all ask here.
// A redirect provider's secret is a file in secrets.dir, never a TOML value (DESIGN.md "Secrets"), so deciding
// needs that file: missing or empty defers the provider, a placeholder in it too, a file open to others is refused.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isPlaceholderHost, isPlaceholderValue } from './placeholders.ts';
import { type Config, REDIRECT_PROVIDERS, WEB3_PROVIDERS } from './schema.ts';

export type ProviderId = (typeof REDIRECT_PROVIDERS)[number] | (typeof WEB3_PROVIDERS)[number];
export const PROVIDER_IDS: readonly ProviderId[] = [...REDIRECT_PROVIDERS, ...WEB3_PROVIDERS];
export type RedirectProviderId = (typeof REDIRECT_PROVIDERS)[number];

/**
 * `missing` is an enabled provider with an empty credential or no secret file; `unsafe` a secret file readable by
 * group or others (the same rule as every other secret file). Neither is ever used.
 */
export type ProviderState =
  | { state: 'off' }
  | { state: 'enabled' }
  | { state: 'deferred'; cause: 'placeholder' | 'missing' | 'unsafe'; key: string; reason: string };

/**
 * The client secret's file name in secrets.dir, for a named selection or a generic `[[providers.oidc]]` id. Apple's
 * is the private key that signs its client-secret JWTs.
 */
export const providerSecretFile = (id: string) => (id === 'apple' ? 'provider-apple.p8' : `provider-${id}.secret`);

export type SecretRead = { value: string } | { problem: 'missing' | 'unsafe' | 'placeholder'; file: string };

/** Reads a provider's secret file (trimmed); never throws, so status and doctor can report what is wrong. */
export function readProviderSecret(secretsDir: string, file: string): SecretRead {
  const full = path.join(secretsDir, file);
  try {
    if ((statSync(full).mode & 0o077) !== 0) return { problem: 'unsafe', file: full };
    const value = readFileSync(full, 'utf8').trim();
    if (value === '') return { problem: 'missing', file: full };
    return isPlaceholderValue(value) ? { problem: 'placeholder', file: full } : { value };
  } catch {
    return { problem: 'missing', file: full };
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** The generic `[[providers.oidc]]` entry with this id, if any. */
export const genericProvider = (config: Config, id: string) => config.providers.oidc.find((p) => p.id === id);

/** State of a redirect provider from its client id and secret file; shared by the named and the generic ones. */
export function redirectProviderState(
  config: Config,
  key: string,
  provider: { enabled: boolean; client_id: string },
  secretFile: string,
): ProviderState {
  if (!provider.enabled) return { state: 'off' };
  if (isPlaceholderValue(provider.client_id))
    return { state: 'deferred', cause: 'placeholder', key: `${key}.client_id`, reason: 'client_id is a placeholder' };
  if (provider.client_id.trim() === '')
    return { state: 'deferred', cause: 'missing', key: `${key}.client_id`, reason: 'client_id is empty' };
  const secret = readProviderSecret(config.secrets.dir, secretFile);
  if ('value' in secret) return { state: 'enabled' };
  const reason = {
    missing: `secret file ${secret.file} is missing or empty`,
    unsafe: `secret file ${secret.file} is readable by group or others (chmod 600)`,
    placeholder: `secret file ${secret.file} holds a placeholder`,
  }[secret.problem];
  return { state: 'deferred', cause: secret.problem, key: `${key}.client_secret`, reason };
}

export function providerState(config: Config, id: ProviderId): ProviderState {
  if (!config.providers[id].enabled) return { state: 'off' };
  if (id === 'ethereum') return { state: 'enabled' };
  if (id === 'farcaster') {
    // Both the relay and the OP Mainnet node are needed: without the node no fid's custody address can be read.
    for (const name of ['relay_url', 'rpc_url'] as const) {
      const host = hostOf(config.providers.farcaster[name]);
      if (host !== null && isPlaceholderHost(host)) {
        const key = `providers.farcaster.${name}`;
        return { state: 'deferred', cause: 'placeholder', key, reason: `${name} is a placeholder host` };
      }
    }
    return { state: 'enabled' };
  }
  const apple = config.providers.apple;
  // Apple's JWT settings are judged after the client id (so a placeholder client id is reported as that).
  if (id === 'apple' && !isPlaceholderValue(apple.client_id) && apple.client_id.trim() !== '') {
    for (const key of ['team_id', 'key_id'] as const) {
      const full = `providers.apple.${key}`;
      if (isPlaceholderValue(apple[key]))
        return { state: 'deferred', cause: 'placeholder', key: full, reason: `${key} is a placeholder` };
      if (apple[key].trim() === '')
        return { state: 'deferred', cause: 'missing', key: full, reason: `${key} is empty` };
    }
  }
  return redirectProviderState(config, `providers.${id}`, config.providers[id], providerSecretFile(id));
}

/** State of a generic OpenID Connect provider by its configured id. */
export function genericProviderState(config: Config, id: string): ProviderState {
  const provider = genericProvider(config, id);
  if (!provider) return { state: 'off' };
  return redirectProviderState(config, `providers.oidc.${id}`, provider, providerSecretFile(id));
}

/** The Ethereum JSON-RPC node of each chain that has a real one (a placeholder host is deferred: reported, unused). */
export function ethereumRpcUrls(config: Config): ReadonlyMap<number, string> {
  const real = config.providers.ethereum.rpc_urls.filter((rpc) => {
    const host = hostOf(rpc.url);
    return host !== null && !isPlaceholderHost(host);
  });
  return new Map(real.map((rpc) => [rpc.chain_id, rpc.url]));
}
