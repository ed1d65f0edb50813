import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { Field } from '../components/Field.tsx';
import { isSpentLink, LinkForward } from '../components/LinkForward.tsx';
import { Page } from '../components/Page.tsx';
import { takeVerificationFragment } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';

const NEW_PASSWORD_HINT =
  'At least 12 characters. A few uncommon words make a strong password; common ones and your name or email are refused.';

/**
 * The page behind the sign-up message's link. The link proves the mailbox, not who chose the sign-up's password
 * (anyone can sign up with any address), so the person types that password again, or, when the sign-up was not
 * theirs or the password is forgotten, chooses a new one (docs/account.md "Signing up and verifying").
 */
export function ConfirmSignUp() {
  const [proof] = useState(takeVerificationFragment);
  const action = useAction();
  const [mode, setMode] = useState<'confirm' | 'choose'>('confirm');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const field = mode === 'confirm' ? { password } : { new_password: password };
    if (proof && (await action.run(() => api('POST', '/account/email/verify', { ...proof, ...field })))) setDone(true);
  };
  const switchTo = (next: 'confirm' | 'choose') => {
    setMode(next);
    setPassword('');
    action.clearError();
  };
  const spent = !proof || isSpentLink(action.error);
  const mismatch = action.error?.code === 'signup_password_mismatch';
  return (
    <Page title="Confirm your email address">
      <ErrorNotice error={action.error} shownFields={['new_password']} />
      {!proof && (
        <p role="alert">This link is incomplete. Open the link from the message again, exactly as it was sent.</p>
      )}
      {done && (
        <>
          <p role="status">Your email address is confirmed. Sign in to finish setting up your account.</p>
          <p>
            <a href="/signin">Continue to sign-in</a>
          </p>
        </>
      )}
      {spent && <LinkForward next={{ href: '/signup', label: 'Sign up again for a new link' }} />}
      {!spent && !done && (
        <form onSubmit={submit} aria-busy={action.busy}>
          {mode === 'confirm' ? (
            <Field
              id="password"
              label="Your password"
              type="password"
              autoComplete="current-password"
              required
              hint="The password you chose when you signed up."
              value={password}
              onValue={setPassword}
              autoFocus
            />
          ) : (
            <>
              <p>
                Anyone can sign up with any address, so the password chosen with this sign-up is not kept. Choose your
                own; it is the one you will sign in with.
              </p>
              <Field
                id="new_password"
                label="New password"
                type="password"
                autoComplete="new-password"
                required
                hint={NEW_PASSWORD_HINT}
                error={action.error?.fields.find((f) => f.path === 'body.new_password')?.problem}
                value={password}
                onValue={setPassword}
                autoFocus
              />
            </>
          )}
          <button type="submit" disabled={action.busy}>
            {mode === 'confirm' ? 'Confirm my address' : 'Confirm and use this password'}
          </button>
          {mode === 'confirm' ? (
            <button type="button" class={mismatch ? 'secondary' : 'link'} onClick={() => switchTo('choose')}>
              This sign-up was not mine, or I forgot the password
            </button>
          ) : (
            <button type="button" class="link" onClick={() => switchTo('confirm')}>
              I know the password I signed up with
            </button>
          )}
        </form>
      )}
    </Page>
  );
}
