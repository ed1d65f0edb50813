import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { HowToTurnOnSelfService } from '../components/SelfServiceOff.tsx';
import { useAction } from '../hooks/use-api.ts';
import { useSignInMethods } from '../hooks/use-sign-in-methods.ts';
import { t } from '../i18n/i18n.ts';

/** The reset form while self-service works (GET /auth/providers); otherwise who can reset the password instead. */
export function ForgotPassword() {
  const methods = useSignInMethods();
  if (methods && !methods.self_service)
    return (
      <Page title={t('forgot.title')}>
        <p>{t('forgot.unavailable')}</p>
        <HowToTurnOnSelfService />
        <p class="aside">
          <a href="/signin">{t('common.backToSignIn')}</a>
        </p>
      </Page>
    );
  return <ForgotPasswordForm />;
}

function ForgotPasswordForm() {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api('POST', '/account/password/forgot', { email }))) setSent(true);
  };
  return (
    <Page title={t('forgot.title')}>
      <ErrorNotice error={action.error} />
      {sent ? (
        <p role="status">{t('forgot.sent', { email })}</p>
      ) : (
        <form onSubmit={submit} aria-busy={action.busy}>
          <Field
            id="email"
            label={t('common.emailAddress')}
            type="email"
            autoComplete="email"
            required
            value={email}
            onValue={setEmail}
            autoFocus
          />
          <button type="submit" disabled={action.busy}>
            {t('forgot.submit')}
          </button>
        </form>
      )}
    </Page>
  );
}
