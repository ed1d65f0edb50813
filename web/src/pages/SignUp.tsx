import { useState } from 'preact/hooks';
import { api, safeReturnTo } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { OtherSignInMethods } from '../components/OtherSignInMethods.tsx';
import { Page } from '../components/Page.tsx';
import { HowToTurnOnSelfService } from '../components/SelfServiceOff.tsx';
import { useAction } from '../hooks/use-api.ts';
import { useSignInMethods } from '../hooks/use-sign-in-methods.ts';
import { problemFor } from './console/field-problems.ts';

/** Sign-up, once GET /auth/providers says it is open; otherwise who can still give the person an account. */
export function SignUp() {
  const methods = useSignInMethods();
  if (!methods)
    return (
      <Page title="Create an account">
        <p class="loading" role="status">
          Loading…
        </p>
      </Page>
    );
  if (!methods.self_service)
    return (
      <Page title="Sign-up is not open here">
        <p>
          Accounts here are created by an administrator. Ask one to invite you: you will get a link to set your password
          and two-factor sign-in.
        </p>
        <HowToTurnOnSelfService />
        <p class="aside">
          Already have an account? <a href="/signin">Sign in</a>
        </p>
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
      <Page title="Check your email">
        <p role="status">
          We sent a confirmation link to <strong>{email}</strong>. Open it and type your password again to finish
          creating your account.
        </p>
        {devMailbox && (
          <p class="aside">
            This is a development instance: the message was not sent but kept. Its link is printed on the terminal
            running Gatehouse and shown on the console's Mailbox page.
          </p>
        )}
      </Page>
    );
  return (
    <Page title="Create an account">
      <ErrorNotice error={action.error} shownFields={['display_name', 'email', 'password']} />
      <form onSubmit={submit} aria-busy={action.busy}>
        <Field
          id="name"
          label="Your name"
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
          label="Email address"
          type="email"
          autoComplete="email"
          required
          error={problemFor(action.error, 'email')}
          value={email}
          onValue={setEmail}
        />
        <Field
          id="password"
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          error={problemFor(action.error, 'password')}
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
      {/* A provider account new here becomes a new account (never one found by its email address). */}
      <OtherSignInMethods methods={methods} returnTo={returnTo} heading="Or sign up with" />
    </Page>
  );
}
