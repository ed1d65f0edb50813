import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { isSpentLink, LinkForward } from '../components/LinkForward.tsx';
import { Page } from '../components/Page.tsx';
import { takeVerificationFragment } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';
import { t, tx } from '../i18n/i18n.ts';

export function ResetPassword() {
  const [proof] = useState(takeVerificationFragment);
  const action = useAction();
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (proof && (await action.run(() => api('POST', '/account/password/reset', { ...proof, password }))))
      setDone(true);
  };
  // A refused password leaves the link usable; a spent link does not, so the form gives way to a new request.
  const spent = !proof || isSpentLink(action.error);
  return (
    <Page title={t('reset.title')}>
      <ErrorNotice error={action.error} />
      {!proof && <p role="alert">{t('common.linkIncomplete')}</p>}
      {done && <p role="status">{tx('reset.done', { link: (chunks) => <a href="/signin">{chunks}</a> })}</p>}
      {spent && <LinkForward next={{ href: '/forgot-password', label: t('reset.newLink') }} />}
      {!spent && !done && (
        <form onSubmit={submit} aria-busy={action.busy}>
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
          <button type="submit" disabled={action.busy}>
            {t('reset.submit')}
          </button>
        </form>
      )}
    </Page>
  );
}
