import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';
import { problemFor } from './field-problems.ts';
import { when } from './types.ts';

interface Invited {
  sub: string;
  email: string;
  display_name: string;
  roles: string[];
  enrollment: { delivery: 'email' | 'shown'; expires_at: string; url?: string };
}

const splitRoles = (text: string) => text.split(/[\s,]+/).filter(Boolean);

/**
 * Invite a person (POST /admin/identities): their address, an optional name and their roles in the organization. The
 * enrollment link is emailed when delivery works; otherwise it is shown here once, for the owner to pass on.
 */
export function InvitePerson({ onInvited }: { onInvited: () => void }) {
  const action = useAction();
  const form = useOutcomeFocus<HTMLElement>();
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [roles, setRoles] = useState('member');
  const [invited, setInvited] = useState<Invited | null>(null);
  const [copied, setCopied] = useState(false);

  const invite = async (event: Event) => {
    event.preventDefault();
    setInvited(null);
    setCopied(false);
    const body = { email, roles: splitRoles(roles), ...(name.trim() ? { display_name: name } : {}) };
    const done = await action.run(() => api<Invited>('POST', '/admin/identities', body));
    if (done) {
      setInvited(done);
      setEmail('');
      setName('');
      onInvited();
    }
    form.settled();
  };

  const link = invited?.enrollment.url;
  return (
    <section ref={form.ref} aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite a person</h2>
      <p class="aside">
        Creates their account in this organization with the roles you choose. They get a one-use link to set a password
        and two-factor sign-in, valid for 7 days.
      </p>
      {invited && !link && (
        <p class="notice notice-done" role="status" tabIndex={-1} data-outcome>
          Invitation sent to {invited.email}. The link in it works once, until {when(invited.enrollment.expires_at)}.
        </p>
      )}
      {invited && link && (
        <div class="notice notice-secret" tabIndex={-1} data-outcome>
          <h3>Enrollment link for {invited.email}</h3>
          <p>
            Message delivery is not configured, so pass this link on yourself, privately. It works once, until{' '}
            {when(invited.enrollment.expires_at)}, and is shown only now.
          </p>
          <p>
            <code class="secret" data-testid="enrollment-link">
              {link}
            </code>
          </p>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(link).then(() => setCopied(true))}>
            {copied ? 'Copied' : 'Copy link'}
          </button>{' '}
          <a href={`/admin/console/identities/${encodeURIComponent(invited.sub)}`}>Open {invited.display_name}</a>
        </div>
      )}
      <ErrorNotice error={action.error} shownFields={['email', 'display_name', 'roles']} />
      <form onSubmit={invite} aria-busy={action.busy}>
        <Field
          id="invite-email"
          label="Email address"
          type="email"
          required
          maxLength={254}
          value={email}
          onValue={setEmail}
          error={problemFor(action.error, 'email')}
        />
        <Field
          id="invite-name"
          label="Name (optional)"
          maxLength={200}
          value={name}
          onValue={setName}
          error={problemFor(action.error, 'display_name')}
        />
        <Field
          id="invite-roles"
          label="Roles"
          hint="owner, admin, member or a role of your own; separate several with spaces."
          required
          value={roles}
          onValue={setRoles}
          error={problemFor(action.error, 'roles', splitRoles(roles))}
        />
        <button type="submit" disabled={action.busy}>
          Invite
        </button>
      </form>
    </section>
  );
}
