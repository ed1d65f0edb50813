// Each of the nine sign-in provider selections (docs/decisions.md): enabled, deferred (a placeholder credential,
// SPEC.md "External sign-in providers") or off. Only configuration is read; no provider is contacted.
import { passkeysUnavailable, relyingParty } from '../config/passkeys.ts';
import {
  type ProviderState as Decided,
  genericProviderState,
  PROVIDER_IDS,
  type ProviderId,
  providerState,
} from '../config/provider-state.ts';
import { type Config, WEB3_PROVIDERS } from '../config/schema.ts';
import { type Check, type CheckStatus, check } from '../delivery/check.ts';
import { type Section, sectionOf } from './section.ts';

export type ProviderState = 'enabled' | 'deferred' | 'off';

export interface ProviderStatus {
  id: string;
  kind: 'redirect' | 'web3';
  state: ProviderState;
  status: CheckStatus;
  detail: string;
}

export interface ProvidersSection extends Section {
  providers: ProviderStatus[];
}

const STATUS: Record<ProviderState, CheckStatus> = { enabled: 'ok', deferred: 'warn', off: 'info' };
const provider = (id: string, kind: ProviderStatus['kind'], state: ProviderState, detail: string) => ({
  id,
  kind,
  state,
  status: STATUS[state],
  detail,
});

const ADVICE = {
  redirect: 'set real credentials (gatehouse config providers)',
  web3: 'set a real relay and OP Mainnet node URL',
} as const;

function enabledDetail(config: Config, id: ProviderId): string {
  if (id === 'ethereum') return `chain ids ${config.providers.ethereum.chain_ids.join(', ')}`;
  if (id === 'farcaster')
    return `relay ${config.providers.farcaster.relay_url}, OP Mainnet node ${config.providers.farcaster.rpc_url}`;
  return `client ${config.providers[id].client_id}`;
}

function statusOf(id: string, kind: ProviderStatus['kind'], state: Decided, detail: () => string): ProviderStatus {
  if (state.state === 'off') return provider(id, kind, 'off', 'not enabled');
  if (state.state === 'deferred') return provider(id, kind, 'deferred', `${state.reason}: ${ADVICE[kind]}`);
  return provider(id, kind, 'enabled', detail());
}

export function providerStatuses(config: Config): ProvidersSection {
  const providers = [
    ...PROVIDER_IDS.map((id): ProviderStatus => {
      const kind = (WEB3_PROVIDERS as readonly string[]).includes(id) ? 'web3' : 'redirect';
      return statusOf(id, kind, providerState(config, id), () => enabledDetail(config, id));
    }),
    ...config.providers.oidc.map((p) =>
      statusOf(p.id, 'redirect', genericProviderState(config, p.id), () => `OpenID Connect ${p.issuer}`),
    ),
  ];
  const shown = providers.filter((p) => p.state !== 'off');
  const checks: Check[] =
    shown.length === 0
      ? [check('info', 'providers', 'none enabled: people sign in with a password')]
      : shown.map((p) => check(p.status, p.id, `${p.state}: ${p.detail}`));
  return { ...sectionOf([...checks, passkeysCheck(config)]), providers };
}

/** The RP ID rule (src/config/passkeys.ts): an explicit bad rp_id already stopped the start; this reports the rest. */
function passkeysCheck(config: Config): Check {
  if (!config.passkeys.enabled) return check('info', 'passkeys', 'off (passkeys.enabled = false)');
  const problem = passkeysUnavailable(config);
  if (problem) return check('warn', 'passkeys', `unavailable: ${problem}; set passkeys.rp_id or a domain issuer`);
  const rp = relyingParty(config);
  const host = new URL(config.server.issuer).hostname;
  const suffix = rp.id === host ? 'the issuer host' : `a registrable suffix of ${host}`;
  return check('ok', 'passkeys', `rp id ${rp.id} (${suffix}); origins ${rp.origins.join(', ')}`);
}
