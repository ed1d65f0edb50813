import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { useAction } from '../hooks/use-api.ts';

export function ForgotPassword() {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api('POST', '/account/password/forgot', { email }))) setSent(true);
  };
  return (
    <Page title="Reset your password">
      <ErrorNotice error={action.error} />
      {sent ? (
        <p role="status">If an account uses {email}, a reset link is on its way. It works once, for 30 minutes.</p>
      ) : (
        <form onSubmit={submit} aria-busy={action.busy}>
          <Field
            id="email"
            label="Email address"
            type="email"
            autoComplete="email"
            required
            value={email}
            onValue={setEmail}
            autoFocus
          />
          <button type="submit" disabled={action.busy}>
            Send reset link
          </button>
        </form>
      )}
    </Page>
  );
}
