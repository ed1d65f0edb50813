// Each of the nine sign-in provider selections (docs/decisions.md): enabled, deferred (a placeholder credential,
// SPEC.md "External sign-in providers") or off. Only configuration is read; no provider is contacted.
import { isPlaceholderValue } from '../config/placeholders.ts';
import { type Config, REDIRECT_PROVIDERS, WEB3_PROVIDERS } from '../config/schema.ts';
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

export function providerStatuses(config: Config): ProvidersSection {
  const providers: ProviderStatus[] = [];
  for (const id of REDIRECT_PROVIDERS) {
    const p = config.providers[id];
    const placeholder = (['client_id', 'client_secret'] as const).find((key) => isPlaceholderValue(p[key]));
    if (!p.enabled) providers.push(provider(id, 'redirect', 'off', 'not enabled'));
    else if (placeholder)
      providers.push(
        provider(id, 'redirect', 'deferred', `providers.${id}.${placeholder} is a placeholder: set real credentials`),
      );
    else providers.push(provider(id, 'redirect', 'enabled', `client ${p.client_id}`));
  }
  for (const id of WEB3_PROVIDERS) {
    const on = config.providers[id].enabled;
    const detail =
      id === 'ethereum'
        ? `chain ids ${config.providers.ethereum.chain_ids.join(', ')}`
        : `relay ${config.providers.farcaster.relay_url}`;
    providers.push(provider(id, 'web3', on ? 'enabled' : 'off', on ? detail : 'not enabled'));
  }
  const shown = providers.filter((p) => p.state !== 'off');
  const checks: Check[] =
    shown.length === 0
      ? [check('info', 'providers', 'none enabled: people sign in with a password')]
      : shown.map((p) => check(p.status, p.id, `${p.state}: ${p.detail}`));
  return { ...sectionOf(checks), providers };
}
