import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type ApiError, api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { LoadState } from '../components/Loading.tsx';
import { Page } from '../components/Page.tsx';
import { asApiError, sentToSignIn, useAction } from '../hooks/use-api.ts';
import { dateTime, type MessageKey, t, tx } from '../i18n/i18n.ts';

interface Account {
  name: string;
  email: string | null;
}

type DeviceKind = 'computer' | 'mobile' | 'tablet' | 'smarttv' | 'console' | 'wearable' | 'embedded' | 'xr' | 'unknown';

interface DeviceRequest {
  user_code: string;
  client_name: string;
  device: { kind: DeviceKind; name: string | null };
  scopes: string[];
  resource_names: Record<string, string[]>;
  requested_at: string;
  expires_at: string;
}

/** The application's name in bold, inside a translated sentence. */
const strong = (chunks: ComponentChildren[]) => <strong>{chunks}</strong>;

const KIND_KEYS: Record<DeviceKind, MessageKey> = {
  computer: 'device.kind.computer',
  mobile: 'device.kind.mobile',
  tablet: 'device.kind.tablet',
  smarttv: 'device.kind.smarttv',
  console: 'device.kind.console',
  wearable: 'device.kind.wearable',
  embedded: 'device.kind.embedded',
  xr: 'device.kind.xr',
  unknown: 'device.kind.unknown',
};

const SCOPE_KEYS: Record<string, MessageKey> = {
  openid: 'scope.openid',
  profile: 'scope.profile',
  email: 'scope.email',
  offline_access: 'scope.offline_access',
};

/** Our own scopes in the page's language; a resource's as "Use <resource>: <scope>", as on the consent page. */
function scopeWords(scope: string, resources: string[]): string {
  const key = SCOPE_KEYS[scope];
  if (key) return t(key);
  return resources.length > 0 ? t('device.resourceScope', { resources: resources.join(', '), scope }) : scope;
}

/**
 * The device sign-in page (RFC 8628 §3.3): signed in first (a 401 goes to sign-in and comes back here with the code;
 * a session waiting for its second step goes through it), the person types or confirms the code their device shows,
 * sees which application on which kind of device asks for what, and approves or denies.
 */
export function Device() {
  const [account, setAccount] = useState<Account | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  useEffect(() => {
    api<Account>('GET', '/oauth/device/account')
      .then(setAccount)
      .catch((caught: unknown) => {
        if (!sentToSignIn(caught)) setLoadError(asApiError(caught));
      });
  }, []);
  return (
    <Page title={t('device.title')}>
      {account ? <DeviceFlow account={account} /> : <LoadState loading={loadError === null} error={loadError} />}
    </Page>
  );
}

function DeviceFlow({ account }: { account: Account }) {
  const initial = new URLSearchParams(location.search).get('user_code') ?? '';
  const [code, setCode] = useState(initial);
  const [request, setRequest] = useState<DeviceRequest | null>(null);
  const [outcome, setOutcome] = useState<{ status: 'approved' | 'denied'; client_name: string } | null>(null);
  const action = useAction();
  const failed = (caught: unknown) => {
    if (!sentToSignIn(caught)) throw caught;
  };

  const look = async (event: Event) => {
    event.preventDefault();
    const found = await action.run(() =>
      api<DeviceRequest>('POST', '/oauth/device/lookup', { user_code: code }).catch(failed),
    );
    if (found) setRequest(found);
  };
  const decide = async (decision: 'approve' | 'deny') => {
    if (!request) return;
    const body = { user_code: request.user_code, decision };
    const decided = await action.run(() =>
      api<{ status: 'approved' | 'denied'; client_name: string }>('POST', '/oauth/device/decision', body).catch(failed),
    );
    if (decided) setOutcome(decided);
  };
  const restart = () => {
    setOutcome(null);
    setRequest(null);
    setCode('');
    history.replaceState(null, '', '/device');
  };

  const signedInAs = (
    <p class="aside device-account">
      {t('device.signedInAs', { name: account.name || (account.email ?? ''), email: account.email ?? '' })}
    </p>
  );

  if (outcome)
    return (
      <>
        <div class={outcome.status === 'approved' ? 'notice notice-done' : 'notice'} role="status" data-outcome>
          <p>
            {outcome.status === 'approved'
              ? tx('device.approved', { client: outcome.client_name, strong })
              : t('device.denied')}
          </p>
        </div>
        <button type="button" class="link" onClick={restart}>
          {t('device.another')}
        </button>
      </>
    );

  if (request)
    return (
      <div class="device-request" aria-busy={action.busy}>
        <ErrorNotice error={action.error} />
        <p>{tx('device.asks', { client: request.client_name, strong })}</p>
        <dl class="facts">
          <dt>{t('device.deviceLabel')}</dt>
          <dd>
            {t(KIND_KEYS[request.device.kind])}
            {request.device.name && <span class="device-name"> · {request.device.name}</span>}
          </dd>
          <dt>{t('device.codeLabel')}</dt>
          <dd>
            <code>{request.user_code}</code>
          </dd>
          <dt>{t('device.requestedLabel')}</dt>
          <dd>{dateTime(request.requested_at)}</dd>
        </dl>
        {request.scopes.length > 0 ? (
          <>
            <p>{t('device.scopesIntro')}</p>
            <ul class="device-scopes">
              {request.scopes.map((scope) => (
                <li key={scope}>{scopeWords(scope, request.resource_names[scope] ?? [])}</li>
              ))}
            </ul>
          </>
        ) : (
          <p>{t('device.noScopes')}</p>
        )}
        <div class="notice notice-warning" role="note">
          <p>{t('device.warning')}</p>
        </div>
        {signedInAs}
        <div class="actions">
          <button type="button" disabled={action.busy} onClick={() => void decide('approve')}>
            {t('device.approve')}
          </button>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => void decide('deny')}>
            {t('device.deny')}
          </button>
        </div>
      </div>
    );

  return (
    <form onSubmit={look} aria-busy={action.busy}>
      <ErrorNotice error={action.error} />
      <p>{t(initial ? 'device.confirmIntro' : 'device.intro')}</p>
      <div class="field">
        <label for="user_code">{t('device.codeLabel')}</label>
        {/* Letters only, typed from a TV or terminal: no autocorrect or capitalisation games; case does not matter. */}
        <input
          id="user_code"
          name="user_code"
          class="device-code-input"
          value={code}
          onInput={(event) => setCode(event.currentTarget.value)}
          required
          autoComplete="off"
          autoCapitalize="characters"
          spellcheck={false}
          maxLength={32}
        />
      </div>
      <button type="submit" disabled={action.busy}>
        {t('common.continue')}
      </button>
      {signedInAs}
    </form>
  );
}
