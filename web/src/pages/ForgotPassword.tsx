import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { HowToTurnOnSelfService } from '../components/SelfServiceOff.tsx';
import { useAction } from '../hooks/use-api.ts';
import { useSignInMethods } from '../hooks/use-sign-in-methods.ts';

/** The reset form while self-service works (GET /auth/providers); otherwise who can reset the password instead. */
export function ForgotPassword() {
  const methods = useSignInMethods();
  if (methods && !methods.self_service)
    return (
      <Page title="Reset your password">
        <p>
          Password reset by email is not available here. Ask an administrator of your organization to send you a new
          enrollment link: with it you choose a new password and set up two-factor sign-in again.
        </p>
        <HowToTurnOnSelfService />
        <p class="aside">
          <a href="/signin">Back to sign-in</a>
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
