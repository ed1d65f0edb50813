// Which sign-in methods the sign-in page may offer (SPEC.md `GET /auth/providers`): enabled providers whose
// configuration is real. A provider with a placeholder or empty credential is deferred (SPEC.md "External sign-in
// providers"), so it is not offered: a button that can only fail is worse than none.
import { type ProviderId, providerState } from '../../config/provider-state.ts';
import { type Config, REDIRECT_PROVIDERS, WEB3_PROVIDERS } from '../../config/schema.ts';
import { deliveryStatus } from '../../delivery/status.ts';

export interface OfferedProvider {
  id: ProviderId;
  name: string;
  kind: 'redirect' | 'web3';
  /** Where the browser goes to start; null while this version has no flow for the provider. */
  start_url: string | null;
}

export interface SignInMethods {
  providers: OfferedProvider[];
  passkeys: boolean;
  /** Sign-up and the other self-service pages work: enabled, and verification delivery is ready. */
  self_service: boolean;
  /**
   * Messages are kept in the development mailbox (console and terminal) instead of being sent, so the pages can say
   * where to look. Configuration allows it only for a loopback issuer, so this tells nobody outside anything.
   */
  dev_mailbox: boolean;
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

/** Computed from configuration only: nothing secret is read into the answer, only ids and names. */
export function signInMethods(config: Config): SignInMethods {
  const offered = (id: ProviderId) => providerState(config, id).state === 'enabled';
  // No provider flow exists in this version (the shared callback and GET /account/connections/start come with the
  // federated sign-in work), so no start URL is offered yet: a button that leads to a 404 is worse than none.
  const redirect = REDIRECT_PROVIDERS.filter(offered).map(
    (id): OfferedProvider => ({ id, name: NAMES[id], kind: 'redirect', start_url: null }),
  );
  const web3 = WEB3_PROVIDERS.filter(offered).map(
    (id): OfferedProvider => ({ id, name: NAMES[id], kind: 'web3', start_url: null }),
  );
  return {
    providers: [...redirect, ...web3],
    // No passkey configuration exists yet; the field is here so the page need not change when it does.
    passkeys: false,
    self_service: config.self_service.enabled && deliveryStatus(config).state === 'ready',
    dev_mailbox: config.delivery.kind === 'dev_mailbox',
  };
}
