import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, safeReturnTo } from '../api.ts';
import { SecondFactorField } from '../components/CodeFields.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { LoadState } from '../components/Loading.tsx';
import { Page } from '../components/Page.tsx';
import { useAction } from '../hooks/use-api.ts';
import { t } from '../i18n/i18n.ts';
import { passkeysSupported, signInWithPasskey } from '../passkeys.ts';
import { pagePending } from '../second-step.ts';

type Method = 'totp' | 'recovery_code' | 'passkey';

interface Pending {
  pending: 'enrollment' | 'second_factor' | null;
  methods: Method[];
}

/**
 * The second step after a single-factor sign-in (a redirect provider, SAML, a wallet, or a password of an account
 * whose authenticator is a passkey): an authentication code, a recovery code or a passkey, then back to where the
 * sign-in was going. A session with nothing pending goes straight on.
 */
export function SecondFactor() {
  const returnTo = safeReturnTo(new URLSearchParams(location.search).get('return_to'));
  const action = useAction();
  const [state, setState] = useState<Pending | null>(null);
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);

  useEffect(() => {
    api<Pending>('GET', '/auth/second-factor')
      .then((found) => {
        if (found.pending === 'second_factor') setState(found);
        else location.assign(pagePending(found.pending, returnTo));
      })
      .catch((caught: unknown) => {
        if (caught instanceof ApiError && caught.status === 401)
          location.assign(`/signin?return_to=${encodeURIComponent(returnTo)}`);
        else void action.run(() => Promise.reject(caught));
      });
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = code.trim();
    const body = useRecovery ? { recovery_code: trimmed } : { totp: trimmed };
    if (await action.run(() => api('POST', '/auth/second-factor', body))) location.assign(returnTo);
  };
  const withPasskey = async () => {
    if (await action.run(() => signInWithPasskey())) location.assign(returnTo);
  };

  if (!state)
    return (
      <Page title={t('secondFactor.title')}>
        <LoadState loading error={action.error} />
      </Page>
    );
  const has = (method: Method) => state.methods.includes(method);
  return (
    <Page title={t('secondFactor.title')}>
      <ErrorNotice error={action.error} />
      <p>{t('secondFactor.explain')}</p>
      {has('totp') && (
        <form onSubmit={submit} aria-busy={action.busy}>
          <SecondFactorField
            recovery={useRecovery}
            value={code}
            onValue={setCode}
            totpRequired
            totpHint={t('secondFactor.totpHint')}
            autoFocus
          />
          {has('recovery_code') && (
            <button type="button" class="link" onClick={() => setUseRecovery(!useRecovery)}>
              {useRecovery ? t('code.useTotp') : t('code.useRecovery')}
            </button>
          )}
          <button type="submit" disabled={action.busy}>
            {t('common.continue')}
          </button>
        </form>
      )}
      {has('passkey') && passkeysSupported() && (
        <button
          type="button"
          class={has('totp') ? 'secondary' : undefined}
          disabled={action.busy}
          onClick={withPasskey}
        >
          {t('secondFactor.usePasskey')}
        </button>
      )}
      <p class="aside">
        <a href={`/signin?return_to=${encodeURIComponent(returnTo)}`}>{t('secondFactor.otherWay')}</a>
      </p>
    </Page>
  );
}
