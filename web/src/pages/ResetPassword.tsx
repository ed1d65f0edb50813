import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { isSpentLink, LinkForward } from '../components/LinkForward.tsx';
import { Page } from '../components/Page.tsx';
import { takeVerificationFragment } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';

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
    <Page title="Choose a new password">
      <ErrorNotice error={action.error} />
      {!proof && (
        <p role="alert">This link is incomplete. Open the link from the message again, exactly as it was sent.</p>
      )}
      {done && (
        <p role="status">
          Your password was changed and every session was signed out. <a href="/signin">Sign in</a>
        </p>
      )}
      {spent && <LinkForward next={{ href: '/forgot-password', label: 'Request a new link' }} />}
      {!spent && !done && (
        <form onSubmit={submit} aria-busy={action.busy}>
          <Field
            id="new-password"
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            hint="At least 12 characters. A few uncommon words make a strong password; common ones and your name or email are refused."
            value={password}
            onValue={setPassword}
            autoFocus
          />
          <button type="submit" disabled={action.busy}>
            Set new password
          </button>
        </form>
      )}
    </Page>
  );
}
