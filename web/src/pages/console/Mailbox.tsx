import { LoadState } from '../../components/Loading.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { when } from './types.ts';

interface KeptMessage {
  id: string;
  template: string;
  to: string;
  subject: string;
  text: string;
  link: string | null;
  kept_at: string;
}

/**
 * The development mailbox (delivery.kind = "dev_mailbox"): what Gatehouse would have sent, newest first, each with its
 * link. Only on loopback development instances; its links are one-time secrets, like the mail they stand in for.
 */
export function Mailbox() {
  const mailbox = useApi<{ messages: KeptMessage[] }>('/admin/mailbox');
  return (
    <ConsoleLayout section="mailbox" title="Mailbox" access={mailbox.error}>
      <p class="aside">
        Development mailbox: verification, password-reset, email-change and invitation messages are kept here (and
        announced on the terminal) instead of being sent. Each link works like the one in a real email: an invitation or
        reset link signs the browser that opens it in as that person, so open those in a private window to stay signed
        in here.
      </p>
      <p>
        <button type="button" class="secondary" onClick={mailbox.reload} disabled={mailbox.loading}>
          Check for new messages
        </button>
      </p>
      <LoadState loading={mailbox.loading} error={mailbox.error} />
      {mailbox.data?.messages.length === 0 && (
        <p class="empty">
          No messages yet. Sign up at <a href="/signup">/signup</a> or invite someone from{' '}
          <a href="/admin/console/identities">Identities</a>, and the message appears here.
        </p>
      )}
      {mailbox.data && mailbox.data.messages.length > 0 && (
        <ol class="mailbox">
          {mailbox.data.messages.map((m) => (
            <li key={m.id}>
              <article aria-labelledby={`${m.id}-subject`}>
                <h2 id={`${m.id}-subject`}>{m.subject}</h2>
                <p>
                  To <strong>{m.to}</strong> · {when(m.kept_at)}
                </p>
                {m.link && (
                  <p>
                    <a href={m.link}>Open the link in this message</a>
                  </p>
                )}
                <details>
                  <summary>Whole message</summary>
                  <pre>{m.text}</pre>
                </details>
              </article>
            </li>
          ))}
        </ol>
      )}
    </ConsoleLayout>
  );
}
