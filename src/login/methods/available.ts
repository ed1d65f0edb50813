// Which sign-in methods the sign-in page may offer (SPEC.md `GET /auth/providers`): enabled providers whose
// configuration is real. A provider with a placeholder or empty credential is deferred (SPEC.md "External sign-in
// providers"), so it is not offered: a button that can only fail is worse than none.
import { isPlaceholderHost, isPlaceholderValue } from '../../config/placeholders.ts';
import { type Config, REDIRECT_PROVIDERS, WEB3_PROVIDERS } from '../../config/schema.ts';
import { deliveryStatus } from '../../delivery/status.ts';

export type ProviderId = (typeof REDIRECT_PROVIDERS)[number] | (typeof WEB3_PROVIDERS)[number];

export interface OfferedProvider {
  id: ProviderId;
  name: string;
  kind: 'redirect' | 'web3';
  /** Where the browser goes to start; null while the flow has no public path (web3 paths are not shown). */
  start_url: string | null;
}

export interface SignInMethods {
  providers: OfferedProvider[];
  passkeys: boolean;
  /** Sign-up and the other self-service pages work: enabled, and verification delivery is ready. */
  self_service: boolean;
}

const NAMES: Record<ProviderId, string> = {
  google: 'Google',
  github: 'GitHub',
  gitlab: 'GitLab',
  microsoft: 'Microsoft',
  apple: 'Apple',
  discord: 'Discord',
  slack: 'Slack',
  ethereum: 'Ethereum wallet',
  farcaster: 'Farcaster',
};

const realCredential = (value: string) => value.trim() !== '' && !isPlaceholderValue(value);

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

function offered(config: Config, id: ProviderId): boolean {
  if (id === 'ethereum') return config.providers.ethereum.enabled;
  if (id === 'farcaster') {
    const relay = hostOf(config.providers.farcaster.relay_url);
    return config.providers.farcaster.enabled && relay !== null && !isPlaceholderHost(relay);
  }
  const provider = config.providers[id];
  return provider.enabled && realCredential(provider.client_id) && realCredential(provider.client_secret);
}

/** Computed from configuration only: nothing secret is read into the answer, only ids and names. */
export function signInMethods(config: Config): SignInMethods {
  const redirect = REDIRECT_PROVIDERS.filter((id) => offered(config, id)).map(
    (id): OfferedProvider => ({
      id,
      name: NAMES[id],
      kind: 'redirect',
      start_url: `/account/connections/start?provider=${id}`,
    }),
  );
  const web3 = WEB3_PROVIDERS.filter((id) => offered(config, id)).map(
    (id): OfferedProvider => ({ id, name: NAMES[id], kind: 'web3', start_url: null }),
  );
  return {
    providers: [...redirect, ...web3],
    // No passkey configuration exists yet; the field is here so the page need not change when it does.
    passkeys: false,
    self_service: config.self_service.enabled && deliveryStatus(config).state === 'ready',
  };
}
