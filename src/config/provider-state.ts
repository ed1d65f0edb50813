// Whether each of the nine provider selections is in use, the one place that decides it: off (not enabled),
// deferred (SPEC.md "External sign-in providers": a placeholder credential or relay host means "configure later";
// reported, never used) or enabled. Validation, the status report and GET /auth/providers all ask here.
import { isPlaceholderHost, isPlaceholderValue } from './placeholders.ts';
import { type Config, REDIRECT_PROVIDERS, WEB3_PROVIDERS } from './schema.ts';

export type ProviderId = (typeof REDIRECT_PROVIDERS)[number] | (typeof WEB3_PROVIDERS)[number];
export const PROVIDER_IDS: readonly ProviderId[] = [...REDIRECT_PROVIDERS, ...WEB3_PROVIDERS];

/**
 * `missing` is an enabled provider with an empty credential: validation refuses that config at startup, so only code
 * reading a config that validation did not pass sees it; such a provider is never used either way.
 */
export type ProviderState =
  | { state: 'off' }
  | { state: 'enabled' }
  | { state: 'deferred'; cause: 'placeholder' | 'missing'; key: string; reason: string };

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

const CREDENTIALS = ['client_id', 'client_secret'] as const;

export function providerState(config: Config, id: ProviderId): ProviderState {
  if (!config.providers[id].enabled) return { state: 'off' };
  if (id === 'ethereum') return { state: 'enabled' };
  if (id === 'farcaster') {
    const relay = hostOf(config.providers.farcaster.relay_url);
    if (relay === null || !isPlaceholderHost(relay)) return { state: 'enabled' };
    const key = 'providers.farcaster.relay_url';
    return { state: 'deferred', cause: 'placeholder', key, reason: 'relay_url is a placeholder host' };
  }
  const provider = config.providers[id];
  const placeholder = CREDENTIALS.find((k) => isPlaceholderValue(provider[k]));
  if (placeholder) {
    const key = `providers.${id}.${placeholder}`;
    return { state: 'deferred', cause: 'placeholder', key, reason: `${placeholder} is a placeholder` };
  }
  const missing = CREDENTIALS.find((k) => provider[k].trim() === '');
  if (missing)
    return { state: 'deferred', cause: 'missing', key: `providers.${id}.${missing}`, reason: `${missing} is empty` };
  return { state: 'enabled' };
}
