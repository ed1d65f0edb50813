import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { TotpField } from '../../components/CodeFields.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { RecoveryCodes } from '../../components/RecoveryCodes.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { t } from '../../i18n/i18n.ts';
import { pagePending } from '../../second-step.ts';

export function TotpSection() {
  const status = useApi<{ enabled: boolean; recovery_codes_remaining: number }>('/account/totp');
  const action = useAction();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  // New recovery codes are a new way to sign in, so they need the password and a current code, as turning off does.
  const [newCodesPassword, setNewCodesPassword] = useState('');
  const [newCodesCode, setNewCodesCode] = useState('');

  const regenerate = async (event: Event) => {
    event.preventDefault();
    const result = await action.run(() =>
      api<{ recovery_codes: string[] }>('POST', '/auth/recovery-codes', {
        password: newCodesPassword,
        code: newCodesCode,
      }),
    );
    if (!result) return;
    setNewCodesPassword('');
    setNewCodesCode('');
    setCodes(result.recovery_codes);
  };
  const disable = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      api<{ enrollment_required: boolean }>('POST', '/account/totp/disable', { password, code }),
    );
    // Without TOTP the session waits: for enrollment again, or for the passkey the account still has.
    if (done) location.assign(pagePending(done.enrollment_required ? 'enrollment' : 'second_factor', '/settings'));
  };

  return (
    <section aria-labelledby="totp-heading">
      <h2 id="totp-heading">{t('totp.heading')}</h2>
      <LoadState loading={status.loading} error={status.error} />
      <ErrorNotice error={action.error} />
      {codes && (
        <RecoveryCodes
          codes={codes}
          onDone={() => {
            setCodes(null);
            status.reload();
          }}
        />
      )}
      {status.data && !codes && (
        <>
          <p>
            {status.data.enabled
              ? t('totp.enabled', { count: status.data.recovery_codes_remaining })
              : t('totp.disabled')}
          </p>
          {!status.data.enabled && (
            <p>
              <a class="button" href="/enroll?return_to=%2Fsettings">
                {t('totp.setUp')}
              </a>
            </p>
          )}
          {status.data.enabled && (
            <>
              <form onSubmit={regenerate} aria-labelledby="recovery-codes-heading">
                <h3 id="recovery-codes-heading">{t('totp.newCodesHeading')}</h3>
                <p class="hint">{t('totp.newCodesHint')}</p>
                <Field
                  id="recovery-codes-password"
                  label={t('common.currentPassword')}
                  type="password"
                  autoComplete="current-password"
                  required
                  value={newCodesPassword}
                  onValue={setNewCodesPassword}
                />
                <TotpField
                  id="recovery-codes-current-code"
                  label={t('totp.currentCode')}
                  required
                  value={newCodesCode}
                  onValue={setNewCodesCode}
                />
                <button type="submit" disabled={action.busy}>
                  {t('totp.newCodesHeading')}
                </button>
              </form>
              <form onSubmit={disable} aria-labelledby="totp-off-heading">
                <h3 id="totp-off-heading">{t('totp.offHeading')}</h3>
                <p class="hint">{t('totp.offHint')}</p>
                <Field
                  id="totp-password"
                  label={t('common.currentPassword')}
                  type="password"
                  autoComplete="current-password"
                  required
                  value={password}
                  onValue={setPassword}
                />
                <TotpField
                  id="totp-current-code"
                  label={t('totp.currentCode')}
                  required
                  value={code}
                  onValue={setCode}
                />
                <button type="submit" class="secondary" disabled={action.busy}>
                  {t('totp.off')}
                </button>
              </form>
            </>
          )}
        </>
      )}
    </section>
  );
}
