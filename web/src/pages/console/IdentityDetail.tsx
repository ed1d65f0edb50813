import { useRoute } from 'preact-iso';
import { LoadState } from '../../components/Loading.tsx';
import { useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { EnrollmentLinkAction } from './EnrollmentLinkAction.tsx';
import { IdentityActions } from './IdentityActions.tsx';
import { IdentityGrants } from './IdentityGrants.tsx';
import { type IdentityDetail as Detail, shownState, when } from './types.ts';

/** One identity in full: facts, actions, emails, sign-in methods, memberships and live sessions. No secrets. */
export function IdentityDetail() {
  const { params } = useRoute();
  const sub = params.sub ?? '';
  const detail = useApi<Detail>(`/admin/identities/${encodeURIComponent(sub)}`);
  const identity = detail.data;
  return (
    <ConsoleLayout
      section="identities"
      title={identity ? identity.display_name || identity.sub : 'Identity'}
      access={detail.error}
    >
      <p>
        <a href="/admin/console/identities">Back to the search</a>
      </p>
      <LoadState loading={detail.loading && !identity} error={detail.error} />
      {identity && (
        <>
          <dl class="facts">
            <dt>Sub</dt>
            <dd>
              <code>{identity.sub}</code>
            </dd>
            <dt>State</dt>
            <dd data-testid="identity-state">
              {shownState(identity)}
              {identity.invited && (
                <span class="hint"> (has not used the invitation link yet, so nobody can sign in to this account)</span>
              )}
            </dd>
            <dt>Assurance</dt>
            <dd data-testid="identity-ial">{identity.ial}</dd>
            <dt>Created</dt>
            <dd>{when(identity.created_at)}</dd>
          </dl>
          <IdentityActions identity={identity} onChanged={detail.reload} />
          {identity.state === 'active' && (
            <EnrollmentLinkAction sub={identity.sub} email={identity.emails.find((e) => e.primary)?.address ?? null} />
          )}
          <section aria-labelledby="emails-heading">
            <h2 id="emails-heading">Email addresses</h2>
            <ul>
              {identity.emails.map((e) => (
                <li key={e.address}>
                  {e.address} {e.primary && '(primary)'} {e.verified ? '· verified' : '· not verified'}
                </li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="methods-heading">
            <h2 id="methods-heading">Sign-in methods</h2>
            <table>
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Added</th>
                  <th scope="col">Last used</th>
                </tr>
              </thead>
              <tbody>
                {identity.sign_in_methods.map((m) => (
                  <tr key={m.id}>
                    <td>{m.label ? `${m.kind} (${m.label})` : m.kind}</td>
                    <td>{m.provider}</td>
                    <td>{when(m.created_at)}</td>
                    <td>{when(m.last_used_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <section aria-labelledby="memberships-heading">
            <h2 id="memberships-heading">Organizations and roles</h2>
            {identity.memberships.length === 0 ? (
              <p>Not a member of any organization.</p>
            ) : (
              <ul>
                {identity.memberships.map((m) => (
                  <li key={m.organization_id}>
                    {m.organization_name}: {m.roles.join(', ')}
                  </li>
                ))}
              </ul>
            )}
            <p>
              <a href="/admin/console/members">Change roles on the Members page</a>
            </p>
          </section>
          <section aria-labelledby="sessions-heading">
            <h2 id="sessions-heading">Live sessions</h2>
            {identity.sessions.length === 0 ? (
              <p data-testid="no-sessions">No live sessions.</p>
            ) : (
              <ul class="sessions">
                {identity.sessions.map((s) => (
                  <li key={s.id}>
                    <p>
                      <strong title={s.user_agent ?? undefined}>{s.device ?? 'Unknown browser'}</strong> · {s.aal}
                    </p>
                    <p class="hint">
                      <code>{s.id}</code> from {s.client_ip ?? 'an unknown address'}, signed in {when(s.created_at)},
                      last seen {when(s.last_seen_at)}
                    </p>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <IdentityGrants sub={identity.sub} reloadWith={identity} />
        </>
      )}
    </ConsoleLayout>
  );
}
