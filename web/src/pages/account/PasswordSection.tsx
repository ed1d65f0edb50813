import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { t } from '../../i18n/i18n.ts';

export function PasswordSection({ passwordSet, onChange }: { passwordSet: boolean; onChange: () => void }) {
  if (!passwordSet)
    return (
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">{t('password.heading')}</h2>
        <p>{t('password.none', { ways: t('connections.heading') })}</p>
      </section>
    );
  return <PasswordChange onChange={onChange} />;
}

function PasswordChange({ onChange }: { onChange: () => void }) {
  const action = useAction();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState<number | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const result = await action.run(() =>
      api<{ sessions_revoked: number }>('POST', '/account/password/change', {
        current_password: current,
        new_password: next,
      }),
    );
    if (result) {
      setDone(result.sessions_revoked);
      setCurrent('');
      setNext('');
      onChange();
    }
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">{t('password.heading')}</h2>
      <ErrorNotice error={action.error} />
      {done !== null && <p role="status">{t('password.changed', { count: done })}</p>}
      <form onSubmit={submit}>
        <Field
          id="current-password"
          label={t('common.currentPassword')}
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onValue={setCurrent}
        />
        <Field
          id="changed-password"
          label={t('common.newPassword')}
          type="password"
          autoComplete="new-password"
          required
          hint={t('common.passwordHint')}
          value={next}
          onValue={setNext}
        />
        <button type="submit" disabled={action.busy}>
          {t('password.submit')}
        </button>
      </form>
    </section>
  );
}
