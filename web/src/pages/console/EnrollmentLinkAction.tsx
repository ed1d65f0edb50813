import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { when } from './types.ts';

interface Issued {
  enrollment: { delivery: 'email' | 'shown'; expires_at: string; url?: string };
}

/**
 * An owner's reset for a person who cannot help themselves (self-service off, or a lost authenticator): a one-use link
 * to set a new password and TOTP, emailed when delivery works, else shown here once.
 */
export function EnrollmentLinkAction({ sub, email }: { sub: string; email: string | null }) {
  const action = useAction();
  const [issued, setIssued] = useState<Issued | null>(null);
  const issue = async () => {
    setIssued(null);
    const done = await action.run(() =>
      api<Issued>('POST', `/admin/identities/${encodeURIComponent(sub)}/enrollment-link`, {}),
    );
    if (done) setIssued(done);
  };
  const link = issued?.enrollment.url;
  return (
    <section aria-labelledby="reset-heading">
      <h2 id="reset-heading">Password and two-factor sign-in</h2>
      <p class="aside">
        A new enrollment link lets the person choose a new password and set up two-factor sign-in again. Using it ends
        their current password, authenticator, recovery codes and sessions. Older links stop working.
      </p>
      <ErrorNotice error={action.error} />
      {issued && !link && (
        <p class="notice notice-done" role="status" tabIndex={-1}>
          Sent to {email ?? 'their address'}. The link works once, until {when(issued.enrollment.expires_at)}.
        </p>
      )}
      {link && (
        <div class="notice notice-secret" role="status" tabIndex={-1}>
          <p>
            Message delivery is not configured: pass this link on yourself, privately. It works once, until{' '}
            {when(issued.enrollment.expires_at)}, and is shown only now.
          </p>
          <p>
            <code class="secret" data-testid="reset-link">
              {link}
            </code>
          </p>
        </div>
      )}
      <button type="button" class="secondary" onClick={() => void issue()} disabled={action.busy}>
        Send a new enrollment link
      </button>
    </section>
  );
}
