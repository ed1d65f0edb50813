import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ErrorNotice } from '../components/ErrorNotice.tsx';
import { type Forward, LinkForward } from '../components/LinkForward.tsx';
import { Page } from '../components/Page.tsx';
import { takeVerificationFragment } from '../fragment.ts';
import { useAction } from '../hooks/use-api.ts';
import { t } from '../i18n/i18n.ts';

interface VerifyEmailProps {
  /** The API that consumes the link (/account/email/change/verify). */
  endpoint: string;
  done: string;
  /** How to get a new link when this one is spent. */
  retry: Forward;
  /** What to say when the API needs a session (401): the link works only for the account that asked for it. */
  signInFirst: string;
}

/** The page behind a verification link that asks the person for nothing more: the email change's (sign-ups have ConfirmSignUp). */
export function VerifyEmail({ endpoint, done, retry, signInFirst }: VerifyEmailProps) {
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
    <Page title={t('verifyEmail.title')}>
      {state === 'working' && <p role="status">{t('verifyEmail.working')}</p>}
      {state === 'done' && (
        <>
          <p role="status">{done}</p>
          <p>
            <a href="/signin">{t('common.continueToSignIn')}</a>
          </p>
        </>
      )}
      {state === 'broken' && (
        <>
          <ErrorNotice error={action.error} />
          {action.error?.status === 401 && <p>{signInFirst}</p>}
          {!action.error && <p role="alert">{t('common.linkIncomplete')}</p>}
          <LinkForward next={retry} />
        </>
      )}
    </Page>
  );
}
