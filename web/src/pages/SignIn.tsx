import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, safeReturnTo } from '../api.ts';
import { SecondFactorField } from '../components/CodeFields.tsx';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { OtherSignInMethods } from '../components/OtherSignInMethods.tsx';
import { Page } from '../components/Page.tsx';
import { usePendingClient } from '../hooks/use-pending-client.ts';
import { type SignInMethods, useSignInMethods } from '../hooks/use-sign-in-methods.ts';
import { t, tx } from '../i18n/i18n.ts';
import { dismissOffer, offerDismissed, returnsToApplication } from '../passkey-offer.ts';
import {
  addPasskey,
  cancelPasskeyAutofill,
  type PasskeySignInResult,
  passkeyAutofill,
  passkeysSupported,
  signInWithPasskey,
} from '../passkeys.ts';
import { pageAfterSignIn, type SignInAnswer } from '../second-step.ts';

interface LoginStart {
  transaction_id: string;
  challenge_id: string;
}

/** A subject whose email domain signs in through its company's single sign-on (a SAML connection). */
interface SingleSignOn {
  sign_in_url: string;
}

const asError = (caught: unknown) =>
  caught instanceof ApiError
    ? caught
    : new ApiError(0, { error: 'client_error', error_description: String(caught), request_id: '' }, null);

/** The server offers passkeys and this browser can use them. */
const offersPasskeys = (methods: SignInMethods | null) => methods?.passkeys === true && passkeysSupported();

/** Two steps, as the API has them: the subject first, then password plus TOTP code (or a recovery code). */
export function SignIn() {
  const params = new URLSearchParams(location.search);
  const returnTo = safeReturnTo(params.get('return_to'));
  const [subject, setSubject] = useState(params.get('login_hint') ?? '');
  const [challenge, setChallenge] = useState<LoginStart | null>(null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [attempted, setAttempted] = useState(false);
  const methods = useSignInMethods();
  const application = usePendingClient(returnTo);
  const [offerPasskey, setOfferPasskey] = useState(false);
  const passkeys = offersPasskeys(methods);

  // Browser autofill: the email field also offers this site's passkeys (conditional mediation) until the person
  // goes on with a password, which starts a login transaction of its own.
  useEffect(() => {
    if (!passkeys || challenge) return;
    let live = true;
    passkeyAutofill()
      .then((result) => live && result && finishPasskey(result))
      .catch((caught: unknown) => live && setError(asError(caught)));
    return () => {
      live = false;
      cancelPasskeyAutofill();
    };
  }, [passkeys, challenge]);

  const finishPasskey = (result: PasskeySignInResult) => location.assign(pageAfterSignIn(result, returnTo));

  const withPasskey = () => {
    cancelPasskeyAutofill();
    void run(async () => finishPasskey(await signInWithPasskey()));
  };

  // After a direct password sign-in: offer a passkey to someone who has none (and whose account pages work), unless an
  // application waits for the redirect back or this browser already said "Not now" (passkey-offer.ts). A quick
  // sign-in (a password manager's autofill) can end before GET /auth/providers has answered: ask for it then, or the
  // offer would depend on which of the two requests came back first.
  const afterPassword = async () => {
    if (returnsToApplication(returnTo) || offerDismissed()) return location.assign(returnTo);
    const known = methods ?? (await api<SignInMethods>('GET', '/auth/providers').catch(() => null));
    if (!offersPasskeys(known)) return location.assign(returnTo);
    const mine = await api<{ passkeys: unknown[] }>('GET', '/account/passkeys').catch(() => null);
    if (mine?.passkeys.length === 0) setOfferPasskey(true);
    else location.assign(returnTo);
  };

  async function run(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (caught) {
      setError(asError(caught));
    } finally {
      setBusy(false);
    }
  }

  const start = (event: Event) => {
    event.preventDefault();
    cancelPasskeyAutofill();
    void run(async () => {
      const started = await api<LoginStart | SingleSignOn>('POST', '/auth/login', { subject });
      if ('sign_in_url' in started)
        return location.assign(`${started.sign_in_url}?return_to=${encodeURIComponent(returnTo)}`);
      setChallenge(started);
      setAttempted(false);
    });
  };

  const verify = (event: Event) => {
    event.preventDefault();
    if (!challenge) return;
    // An account without an authenticator signs in with the password alone and is then asked to set one up.
    const trimmed = code.trim();
    const factor = trimmed === '' ? {} : useRecovery ? { recovery_code: trimmed } : { totp: trimmed };
    void run(async () => {
      // A login transaction is good for one attempt: a retry starts a fresh one for the same subject.
      const current = attempted ? await api<LoginStart>('POST', '/auth/login', { subject }) : challenge;
      setChallenge(current);
      setAttempted(true);
      const result = await api<SignInAnswer>('POST', '/auth/mfa/verify', {
        transaction_id: current.transaction_id,
        challenge_id: current.challenge_id,
        password,
        ...factor,
      });
      const next = pageAfterSignIn(result, returnTo);
      if (next !== returnTo) location.assign(next);
      else await afterPassword();
    });
  };

  if (offerPasskey)
    return (
      <Page title={t('passkeyOffer.title')}>
        <ErrorNotice error={error} />
        <p>{t('passkeyOffer.explain')}</p>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await addPasskey('');
              location.assign(returnTo);
            })
          }
        >
          {t('passkey.add')}
        </button>
        <button
          type="button"
          class="secondary"
          disabled={busy}
          onClick={() => {
            dismissOffer();
            location.assign(returnTo);
          }}
        >
          {t('passkeyOffer.notNow')}
        </button>
      </Page>
    );

  return (
    <Page title={t('signIn.title')}>
      {application && (
        <p class="continue-to">{tx('signIn.continueTo', { application, b: (chunks) => <strong>{chunks}</strong> })}</p>
      )}
      <ErrorNotice error={error} />
      {!challenge ? (
        <form onSubmit={start} aria-busy={busy}>
          <Field
            id="subject"
            label={t('common.emailAddress')}
            type="email"
            autoComplete="username webauthn"
            required
            value={subject}
            onValue={setSubject}
            autoFocus
          />
          <button type="submit" disabled={busy}>
            {t('common.continue')}
          </button>
          {passkeys && (
            <button type="button" class="secondary" disabled={busy} onClick={withPasskey}>
              {t('signIn.withPasskey')}
            </button>
          )}
        </form>
      ) : (
        <form onSubmit={verify} aria-busy={busy}>
          <p class="subject">
            {tx('signIn.signingInAs', { subject, b: (chunks) => <strong>{chunks}</strong> })}{' '}
            <button type="button" class="link" onClick={() => setChallenge(null)}>
              {t('signIn.change')}
            </button>
          </p>
          <Field
            id="password"
            label={t('common.password')}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onValue={setPassword}
            autoFocus
          />
          <SecondFactorField
            recovery={useRecovery}
            value={code}
            onValue={setCode}
            totpRequired={false}
            totpHint={t('signIn.totpHint')}
          />
          <button type="button" class="link" onClick={() => setUseRecovery(!useRecovery)}>
            {useRecovery ? t('code.useTotp') : t('code.useRecovery')}
          </button>
          <button type="submit" disabled={busy}>
            {t('common.signIn')}
          </button>
        </form>
      )}
      <p class="aside">
        <a href="/forgot-password">{t('signIn.forgot')}</a>
      </p>
      {methods?.self_service && (
        <p class="aside">{tx('signIn.newHere', { link: (chunks) => <a href="/signup">{chunks}</a> })}</p>
      )}
      <OtherSignInMethods methods={methods} returnTo={returnTo} />
    </Page>
  );
}
