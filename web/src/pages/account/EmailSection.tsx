import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { t, tx } from '../../i18n/i18n.ts';
import { problemFor } from '../console/field-problems.ts';
import { ConfirmIdentity, needsConfirmation } from './ConfirmIdentity.tsx';
import type { Profile } from './types.ts';

export function EmailSection({ profile }: { profile: Profile }) {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    // Without a password, a recent sign-in with any method confirms the change (the server says when it is too old).
    const confirmation = password ? { password } : {};
    if (await action.run(() => api('POST', '/account/email/change', { new_email: email, ...confirmation }))) {
      setSent(email);
      setPassword('');
    }
  };
  return (
    <section aria-labelledby="email-heading">
      <h2 id="email-heading">{t('email.heading')}</h2>
      <p>
        {tx('email.current', {
          email: profile.email ?? '',
          verified: profile.email_verified ? 'yes' : 'no',
          b: (chunks) => <strong>{chunks}</strong>,
        })}
      </p>
      <ErrorNotice error={action.error} shownFields={['new_email', 'password']} />
      {sent && <p role="status">{t('email.sent', { email: sent })}</p>}
      <form onSubmit={submit}>
        <Field
          id="new-email"
          label={t('email.new')}
          type="email"
          autoComplete="email"
          required
          error={problemFor(action.error, 'new_email')}
          value={email}
          onValue={setEmail}
        />
        {profile.password_set && (
          <Field
            id="email-password"
            label={t('common.currentPassword')}
            type="password"
            autoComplete="current-password"
            required
            error={problemFor(action.error, 'password')}
            value={password}
            onValue={setPassword}
          />
        )}
        {!profile.password_set && needsConfirmation(action.error) && (
          <ConfirmIdentity id="email-password" passwordSet={false} password="" onPassword={setPassword} />
        )}
        <button type="submit" disabled={action.busy}>
          {t('email.submit')}
        </button>
      </form>
    </section>
  );
}
