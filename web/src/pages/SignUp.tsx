import { useState } from 'preact/hooks';
import { api, safeReturnTo } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { OtherSignInMethods } from '../components/OtherSignInMethods.tsx';
import { Page } from '../components/Page.tsx';
import { HowToTurnOnSelfService } from '../components/SelfServiceOff.tsx';
import { useAction } from '../hooks/use-api.ts';
import { useSignInMethods } from '../hooks/use-sign-in-methods.ts';
import { t, tx } from '../i18n/i18n.ts';
import { problemFor } from './console/field-problems.ts';

/** Sign-up, once GET /auth/providers says it is open; otherwise who can still give the person an account. */
export function SignUp() {
  const methods = useSignInMethods();
  if (!methods)
    return (
      <Page title={t('signUp.title')}>
        <p class="loading" role="status">
          {t('common.loading')}
        </p>
      </Page>
    );
  if (!methods.self_service)
    return (
      <Page title={t('signUp.closedTitle')}>
        <p>{t('signUp.closedExplain')}</p>
        <HowToTurnOnSelfService />
        <p class="aside">{tx('common.alreadyHaveAccount', { link: (chunks) => <a href="/signin">{chunks}</a> })}</p>
      </Page>
    );
  return <SignUpForm devMailbox={methods.dev_mailbox} />;
}

function SignUpForm({ devMailbox }: { devMailbox: boolean }) {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState(false);
  const methods = useSignInMethods();
  const returnTo = safeReturnTo(new URLSearchParams(location.search).get('return_to'));

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api('POST', '/account/signup', { email, password, display_name: name }))) setSent(true);
  };

  if (sent)
    return (
      <Page title={t('signUp.checkEmail')}>
        <p role="status">{tx('signUp.sent', { email, b: (chunks) => <strong>{chunks}</strong> })}</p>
        {devMailbox && <p class="aside">{t('signUp.devMailbox')}</p>}
      </Page>
    );
  return (
    <Page title={t('signUp.title')}>
      <ErrorNotice error={action.error} shownFields={['display_name', 'email', 'password']} />
      <form onSubmit={submit} aria-busy={action.busy}>
        <Field
          id="name"
          label={t('signUp.name')}
          autoComplete="name"
          required
          maxLength={200}
          error={problemFor(action.error, 'display_name')}
          value={name}
          onValue={setName}
          autoFocus
        />
        <Field
          id="email"
          label={t('common.emailAddress')}
          type="email"
          autoComplete="email"
          required
          error={problemFor(action.error, 'email')}
          value={email}
          onValue={setEmail}
        />
        <Field
          id="password"
          label={t('common.password')}
          type="password"
          autoComplete="new-password"
          required
          error={problemFor(action.error, 'password')}
          hint={t('common.passwordHint')}
          value={password}
          onValue={setPassword}
        />
        <button type="submit" disabled={action.busy}>
          {t('signUp.submit')}
        </button>
      </form>
      <p class="aside">{tx('common.alreadyHaveAccount', { link: (chunks) => <a href="/signin">{chunks}</a> })}</p>
      {/* A provider account new here becomes a new account (never one found by its email address). */}
      <OtherSignInMethods methods={methods} returnTo={returnTo} heading={t('signUp.orWith')} />
    </Page>
  );
}
