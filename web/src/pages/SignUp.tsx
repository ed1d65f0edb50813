import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { useAction } from '../hooks/use-api.ts';

export function SignUp() {
  const action = useAction();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api('POST', '/account/signup', { email, password, display_name: name }))) setSent(true);
  };

  if (sent)
    return (
      <Page title="Check your email">
        <p role="status">
          We sent a confirmation link to <strong>{email}</strong>. Open it to finish creating your account.
        </p>
      </Page>
    );
  return (
    <Page title="Create an account">
      <ErrorNotice error={action.error} />
      <form onSubmit={submit} aria-busy={action.busy}>
        <Field
          id="name"
          label="Your name"
          autoComplete="name"
          required
          maxLength={200}
          value={name}
          onValue={setName}
          autoFocus
        />
        <Field
          id="email"
          label="Email address"
          type="email"
          autoComplete="email"
          required
          value={email}
          onValue={setEmail}
        />
        <Field
          id="password"
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          hint="At least 12 characters. A few uncommon words make a strong password; common ones and your name or email are refused."
          value={password}
          onValue={setPassword}
        />
        <button type="submit" disabled={action.busy}>
          Create account
        </button>
      </form>
      <p class="aside">
        Already have an account? <a href="/signin">Sign in</a>
      </p>
    </Page>
  );
}
