import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { isSpentLink, LinkForward } from '../components/LinkForward.tsx';
import { Page } from '../components/Page.tsx';
import { takeVerificationFragment } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';
import { t } from '../i18n/i18n.ts';
import { problemFor } from './console/field-problems.ts';

/**
 * The page behind the sign-up message's link. The link proves the mailbox, not who chose the sign-up's password
 * (anyone can sign up with any address), so the person types that password again, or, when the sign-up was not
 * theirs or the password is forgotten, chooses a new one (docs/account.md "Signing up and verifying").
 */
export function ConfirmSignUp() {
  const [proof] = useState(takeVerificationFragment);
  const action = useAction();
  const [mode, setMode] = useState<'confirm' | 'choose'>('confirm');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const field = mode === 'confirm' ? { password } : { new_password: password };
    if (proof && (await action.run(() => api('POST', '/account/email/verify', { ...proof, ...field })))) setDone(true);
  };
  const switchTo = (next: 'confirm' | 'choose') => {
    setMode(next);
    setPassword('');
    action.clearError();
  };
  const spent = !proof || isSpentLink(action.error);
  const mismatch = action.error?.code === 'signup_password_mismatch';
  return (
    <Page title={t('confirmSignUp.title')}>
      <ErrorNotice error={action.error} shownFields={['new_password']} />
      {!proof && <p role="alert">{t('common.linkIncomplete')}</p>}
      {done && (
        <>
          <p role="status">{t('confirmSignUp.done')}</p>
          <p>
            <a href="/signin">{t('common.continueToSignIn')}</a>
          </p>
        </>
      )}
      {spent && <LinkForward next={{ href: '/signup', label: t('confirmSignUp.signUpAgain') }} />}
      {!spent && !done && (
        <form onSubmit={submit} aria-busy={action.busy}>
          {mode === 'confirm' ? (
            <Field
              id="password"
              label={t('confirmSignUp.yourPassword')}
              type="password"
              autoComplete="current-password"
              required
              hint={t('confirmSignUp.yourPasswordHint')}
              value={password}
              onValue={setPassword}
              autoFocus
            />
          ) : (
            <>
              <p>{t('confirmSignUp.chooseExplain')}</p>
              <Field
                id="new_password"
                label={t('common.newPassword')}
                type="password"
                autoComplete="new-password"
                required
                hint={t('common.passwordHint')}
                error={problemFor(action.error, 'new_password')}
                value={password}
                onValue={setPassword}
                autoFocus
              />
            </>
          )}
          <button type="submit" disabled={action.busy}>
            {mode === 'confirm' ? t('confirmSignUp.confirm') : t('confirmSignUp.confirmAndUse')}
          </button>
          {mode === 'confirm' ? (
            <button type="button" class={mismatch ? 'secondary' : 'link'} onClick={() => switchTo('choose')}>
              {t('confirmSignUp.notMine')}
            </button>
          ) : (
            <button type="button" class="link" onClick={() => switchTo('confirm')}>
              {t('confirmSignUp.iKnow')}
            </button>
          )}
        </form>
      )}
    </Page>
  );
}
