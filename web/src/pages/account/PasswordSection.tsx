import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';

export function PasswordSection({ passwordSet, onChange }: { passwordSet: boolean; onChange: () => void }) {
  if (!passwordSet)
    return (
      <section aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <p>
          Your account has no password: you sign in with a passkey or a linked account (see “Ways to sign in”). To
          confirm a change, you sign in again with one of them.
        </p>
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
      <h2 id="password-heading">Password</h2>
      <ErrorNotice error={action.error} />
      {done !== null && <p role="status">Password changed; {done} other session(s) signed out.</p>}
      <form onSubmit={submit}>
        <Field
          id="current-password"
          label="Current password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onValue={setCurrent}
        />
        <Field
          id="changed-password"
          label="New password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 12 characters. A few uncommon words make a strong password; common ones and your name or email are refused."
          value={next}
          onValue={setNext}
        />
        <button type="submit" disabled={action.busy}>
          Change password
        </button>
      </form>
    </section>
  );
}
