// Which sign-in methods the sign-in page may offer (SPEC.md `GET /auth/providers`): enabled providers whose
// configuration is real. A provider with a placeholder or empty credential is deferred (SPEC.md "External sign-in
// providers"), so it is not offered: a button that can only fail is worse than none.
import { passkeysUnavailable } from '../../config/passkeys.ts';
import { genericProviderState, type ProviderId, providerState } from '../../config/provider-state.ts';
import { type Config, REDIRECT_PROVIDERS, WEB3_PROVIDERS } from '../../config/schema.ts';
import { deliveryStatus } from '../../delivery/status.ts';
import { hasFlow, NAMED_PROVIDER_NAMES } from '../federated/registry.ts';
import type { SamlConnection } from '../saml/connection.ts';

export interface OfferedProvider {
  /** One of the nine selections, or the id of a generic OpenID Connect provider (`[[providers.oidc]]`). */
  id: string;
  name: string;
  /** saml: a `[saml.<id>]` connection; its id is the connection's, a namespace apart from the providers' ids. */
  kind: 'redirect' | 'web3' | 'saml';
  /**
   * Where the browser goes to start (a redirect provider, or a SAML connection: add `?return_to=`), or the JSON
   * start route the page POSTs to (web3); null while this version has no flow for the provider.
   */
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
  ...NAMED_PROVIDER_NAMES,
  ethereum: 'Ethereum wallet',
  farcaster: 'Farcaster',
};

/** Both web3 providers start with a JSON POST from the page, not a navigation. */
const WEB3_START: Record<(typeof WEB3_PROVIDERS)[number], string> = {
  ethereum: '/auth/web3/ethereum/start',
  farcaster: '/auth/web3/farcaster/start',
};

const startUrl = (id: string) => `/auth/federated/start?provider=${encodeURIComponent(id)}`;

/**
 * Computed from configuration and, when given, the live SAML connection map (which also holds those made through the
 * admin API): nothing secret is read into the answer, only ids and names.
 */
export function signInMethods(config: Config, samlConnections?: Map<string, SamlConnection>): SignInMethods {
  const offered = (id: ProviderId) => providerState(config, id).state === 'enabled';
  // A selection whose kind has no flow in this version keeps start_url null: a button that leads nowhere is worse
  // than none (the page leaves such providers out).
  const redirect = REDIRECT_PROVIDERS.filter(offered).map(
    (id): OfferedProvider => ({ id, name: NAMES[id], kind: 'redirect', start_url: hasFlow(id) ? startUrl(id) : null }),
  );
  const generic = config.providers.oidc
    .filter((p) => genericProviderState(config, p.id).state === 'enabled')
    .map((p): OfferedProvider => ({ id: p.id, name: p.name, kind: 'redirect', start_url: startUrl(p.id) }));
  // Web3 starts with a JSON POST from the page (the wallet or the Farcaster app signs), not a navigation.
  const web3 = WEB3_PROVIDERS.filter(offered).map(
    (id): OfferedProvider => ({ id, name: NAMES[id], kind: 'web3', start_url: WEB3_START[id] }),
  );
  // Every SAML connection (configured or made through the admin API), besides routing by email domain, so the page can offer "Sign in with <name>".
  // One whose idp_metadata_url has not been fetched yet is still listed: its start answers 503 with the reason.
  const connections = samlConnections
    ? [...samlConnections.values()].map((c) => [c.id, c.config] as const)
    : Object.entries(config.saml);
  const saml = connections.map(
    ([id, c]): OfferedProvider => ({ id, name: c.name, kind: 'saml', start_url: `/auth/saml/${id}/start` }),
  );
  return {
    providers: [...redirect, ...generic, ...web3, ...saml],
    // Enabled, with an RP ID browsers accept (not an IP-address issuer): src/config/passkeys.ts.
    passkeys: passkeysUnavailable(config) === null,
    self_service: config.self_service.enabled && deliveryStatus(config).state === 'ready',
    dev_mailbox: config.delivery.kind === 'dev_mailbox',
  };
}
