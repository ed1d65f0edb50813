import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, safeReturnTo } from '../api.ts';
import { TotpField } from '../components/CodeFields.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { RecoveryCodes } from '../components/RecoveryCodes.tsx';
import { takeEnrollmentToken } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';
import { useSignInMethods } from '../hooks/use-sign-in-methods.ts';
import { t, tx } from '../i18n/i18n.ts';
import { addPasskey, passkeysSupported, signInWithPasskey } from '../passkeys.ts';

interface TotpStart {
  otpauth_uri: string;
  secret: string;
  qr_svg?: string;
  /** The account the authenticator app will list (its primary address). */
  account?: string;
}

/** `done`: the account had an authenticator already (this page reloaded after enrolling, say). */
type Step = 'password' | 'totp' | 'codes' | 'done';

/** The key in groups of four, as authenticator apps show and take it; the text itself has no spaces to copy. */
const KeyGroups = ({ secret }: { secret: string }) => (
  <code data-testid="totp-secret" class="key-groups">
    {(secret.match(/.{1,4}/g) ?? []).map((group, i) => (
      <span key={i}>{group}</span>
    ))}
  </code>
);

/**
 * Finishing an account: with an enrollment link (`#token=`, read once and dropped from the address bar) the owner
 * first sets a password; then everyone enrolls TOTP (QR code or manual key) and receives recovery codes once, or,
 * where passkeys and the account pages are offered, adds a passkey and confirms it with a user-verified sign-in.
 */
export function Enroll() {
  const params = new URLSearchParams(location.search);
  const [token] = useState(takeEnrollmentToken);
  const returnTo = safeReturnTo(params.get('return_to') ?? '/admin/console');
  const action = useAction();
  const [step, setStep] = useState<Step>(token ? 'password' : 'totp');
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const [totp, setTotp] = useState<TotpStart | null>(null);
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[]>([]);
  const [mismatch, setMismatch] = useState(false);
  const [account, setAccount] = useState<string | null>(null);
  const methods = useSignInMethods();
  const offersPasskey = methods?.passkeys === true && methods.self_service && passkeysSupported();

  // The link's account, named before a password is chosen for it; a dead link says so now, not after typing.
  useEffect(() => {
    if (!token) return;
    void action
      .run(() => api<{ email: string }>('POST', '/auth/enroll/account', { token }))
      .then((found) => found && setAccount(found.email));
  }, []);

  useEffect(() => {
    if (step !== 'totp' || totp) return;
    void action
      .run(async () => {
        try {
          return await api<TotpStart>('POST', '/account/totp/start', {});
        } catch (caught) {
          // No session: sign in first. Sign-in itself sends an account without TOTP back to enrollment.
          if (caught instanceof ApiError && caught.status === 401) {
            location.assign(`/signin?return_to=${encodeURIComponent(returnTo)}`);
            return null;
          }
          // Enrolled already (this page reloaded after enrolling): say so and offer the way on, not an error.
          if (caught instanceof ApiError && caught.code === 'totp_already_enrolled') {
            setStep('done');
            return null;
          }
          throw caught;
        }
      })
      .then((started) => {
        if (!started) return;
        setTotp(started);
        if (started.account) setAccount(started.account);
      });
  }, [step]);

  const setPasswordStep = async (event: Event) => {
    event.preventDefault();
    setMismatch(password !== confirmation);
    if (password !== confirmation) return;
    if (await action.run(() => api('POST', '/auth/enroll', { token, password }))) setStep('totp');
  };

  // The new passkey is a second factor once it is used with user verification: that sign-in completes the session.
  const withPasskey = async () => {
    const done = await action.run(async () => {
      await addPasskey('');
      return await signInWithPasskey();
    });
    if (done) location.assign(returnTo);
  };

  const completeTotp = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      api<{ recovery_codes: string[] }>('POST', '/account/totp/complete', { code: code.trim() }),
    );
    if (done) {
      setCodes(done.recovery_codes);
      setStep('codes');
    }
  };

  return (
    <Page
      title={
        step === 'password'
          ? t('enroll.passwordTitle')
          : step === 'totp'
            ? t('enroll.totpTitle')
            : step === 'done'
              ? t('enroll.doneTitle')
              : t('recovery.title')
      }
    >
      {account && step !== 'codes' && (
        <p class="enroll-account">{tx('enroll.forAccount', { account: <strong>{account}</strong> })}</p>
      )}
      <ErrorNotice error={action.error} />
      {step === 'password' && (
        <form onSubmit={setPasswordStep} aria-busy={action.busy}>
          {/* The account's name beside the new password, so a password manager files it under that account. */}
          {account && (
            <input
              type="text"
              class="visually-hidden"
              name="username"
              autoComplete="username"
              value={account}
              readOnly
              tabIndex={-1}
              aria-hidden="true"
            />
          )}
          <Field
            id="new-password"
            label={t('common.newPassword')}
            type="password"
            autoComplete="new-password"
            required
            hint={t('common.passwordHint')}
            value={password}
            onValue={setPassword}
            autoFocus
          />
          <Field
            id="confirm-password"
            label={t('enroll.repeatPassword')}
            type="password"
            autoComplete="new-password"
            required
            value={confirmation}
            onValue={setConfirmation}
          />
          {mismatch && (
            <p class="field-error" role="alert">
              {t('enroll.passwordsDiffer')}
            </p>
          )}
          <button type="submit" disabled={action.busy}>
            {t('enroll.setPassword')}
          </button>
        </form>
      )}
      {step === 'totp' && totp && (
        <form onSubmit={completeTotp} aria-busy={action.busy}>
          <p>{t('enroll.scan')}</p>
          {totp.qr_svg && (
            <img
              class="qr"
              alt={t('enroll.qrAlt')}
              src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(totp.qr_svg)}`}
            />
          )}
          <p>{tx('enroll.key', { key: <KeyGroups secret={totp.secret} /> })}</p>
          <TotpField
            id="totp-code"
            label={t('enroll.codeLabel')}
            required
            value={code}
            onValue={setCode}
            hint={t('enroll.codeHint')}
          />
          <button type="submit" disabled={action.busy}>
            {t('enroll.turnOn')}
          </button>
          {offersPasskey && (
            <button type="button" class="secondary" disabled={action.busy} onClick={withPasskey}>
              {t('enroll.usePasskey')}
            </button>
          )}
        </form>
      )}
      {step === 'codes' && <RecoveryCodes titled codes={codes} onDone={() => location.assign(returnTo)} />}
      {step === 'done' && <AlreadyEnrolled returnTo={returnTo} selfService={methods?.self_service === true} />}
    </Page>
  );
}

/**
 * What a reload after enrolling shows: the work is done, the way on, and the truth about the recovery codes. They
 * were shown once on this address and are not kept anywhere they could be shown from again; new ones replace them.
 */
function AlreadyEnrolled({ returnTo, selfService }: { returnTo: string; selfService: boolean }) {
  const toAccount = '/settings#totp-heading';
  return (
    <div data-testid="enrollment-done">
      <p>{t('enroll.doneExplain')}</p>
      <p>{selfService ? t('enroll.doneCodes') : t('enroll.doneCodesAdmin')}</p>
      <p>
        <a class="button" href={returnTo}>
          {t('enroll.continue')}
        </a>{' '}
        {selfService && !returnTo.startsWith('/settings') && (
          <a class="button secondary" href={toAccount}>
            {t('enroll.toAccount')}
          </a>
        )}
      </p>
    </div>
  );
}
