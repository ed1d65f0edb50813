import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { type Forward, LinkForward } from '../components/LinkForward.tsx';
import { Page } from '../components/Page.tsx';
import { takeVerificationFragment } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';

/**
 * The page behind the links in verification messages. `endpoint` is the API that consumes the link:
 * /account/email/verify for sign-ups, /account/email/change/verify for a new address. `retry` is how to get a new
 * link when this one is spent.
 */
export function VerifyEmail({ endpoint, done, retry }: { endpoint: string; done: string; retry: Forward }) {
  const action = useAction();
  const [state, setState] = useState<'working' | 'done' | 'broken'>('working');

  useEffect(() => {
    const proof = takeVerificationFragment();
    if (!proof) {
      setState('broken');
      return;
    }
    void action.run(() => api('POST', endpoint, proof)).then((result) => setState(result ? 'done' : 'broken'));
  }, []);

  return (
    <Page title="Email confirmation">
      {state === 'working' && <p role="status">Confirming…</p>}
      {state === 'done' && (
        <>
          <p role="status">{done}</p>
          <p>
            <a href="/signin">Continue to sign-in</a>
          </p>
        </>
      )}
      {state === 'broken' && (
        <>
          <ErrorNotice error={action.error} />
          {!action.error && (
            <p role="alert">This link is incomplete. Open the link from the message again, exactly as it was sent.</p>
          )}
          <LinkForward next={retry} />
        </>
      )}
    </Page>
  );
}
