import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { counted } from './count-words.ts';
import { MemberRow } from './MemberRow.tsx';
import { type Member, type Organization, splitList } from './types.ts';

/** Members of an organization (the bootstrap one first) with their roles: edit, remove, add by sub. */
export function Members() {
  const organizations = useApi<{ organizations: Organization[] }>('/admin/organizations');
  const [organizationId, setOrganizationId] = useState('');
  useEffect(() => {
    const list = organizations.data?.organizations ?? [];
    if (!organizationId) setOrganizationId((list.find((o) => o.bootstrap) ?? list[0])?.id ?? '');
  }, [organizations.data]);

  return (
    <ConsoleLayout section="members" title="Organization members" access={organizations.error}>
      <LoadState loading={organizations.loading} error={organizations.error} />
      {organizations.data && organizations.data.organizations.length > 1 && (
        <div class="field">
          <label for="organization">Organization</label>
          <select id="organization" value={organizationId} onChange={(e) => setOrganizationId(e.currentTarget.value)}>
            {organizations.data.organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name} ({o.id}){o.bootstrap ? ', administers this service' : ''}
              </option>
            ))}
          </select>
        </div>
      )}
      {organizationId && <MemberList key={organizationId} organizationId={organizationId} />}
    </ConsoleLayout>
  );
}

function MemberList({ organizationId }: { organizationId: string }) {
  const [cursor, setCursor] = useState('');
  const base = `/admin/organizations/${encodeURIComponent(organizationId)}/members`;
  const list = useApi<{ members: Member[]; next_cursor: string | null }>(
    cursor ? `${base}?cursor=${encodeURIComponent(cursor)}` : base,
  );
  const action = useAction();
  const [done, setDone] = useState('');
  const [sub, setSub] = useState('');
  const [roles, setRoles] = useState('member');
  const changed = (message: string) => {
    setDone(message);
    list.reload();
  };
  const add = async (event: Event) => {
    event.preventDefault();
    const path = `${base}/${encodeURIComponent(sub.trim())}`;
    if (await action.run(() => api('PUT', path, { roles: splitList(roles) }))) {
      setSub('');
      changed('Added the member.');
    }
  };

  return (
    <>
      <p class="hint">
        Roles: owner, admin, member, or your own names (lowercase letters, digits and _ . : -), separated by spaces. The
        organization that administers this service always keeps an active IAL2 owner.
      </p>
      <ErrorNotice error={action.error} />
      <p role="status" class="hint">
        {done}
      </p>
      <LoadState loading={list.loading && !list.data} error={list.error} />
      {list.data?.members.length === 0 && (
        <EmptyState>This organization has no members yet. Add one below by their identity.</EmptyState>
      )}
      {!!list.data?.members.length && (
        <table>
          <caption>{counted(list.data.members.length, { one: 'member', other: 'members' })} on this page</caption>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">State</th>
              <th scope="col">Roles</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.members.map((m) => (
              <MemberRow
                key={`${m.sub}:${m.roles.join(' ')}`}
                organizationId={organizationId}
                member={m}
                action={action}
                onChanged={changed}
              />
            ))}
          </tbody>
        </table>
      )}
      <p>
        {cursor && (
          <button type="button" class="secondary" onClick={() => setCursor('')}>
            First page
          </button>
        )}
        {list.data?.next_cursor && (
          <button type="button" class="secondary" onClick={() => setCursor(list.data?.next_cursor ?? '')}>
            Next page
          </button>
        )}
      </p>
      <form onSubmit={add} aria-labelledby="add-member">
        <h2 id="add-member">Add a member</h2>
        <Field
          id="member-sub"
          label="Identity (sub)"
          hint="The person's sub, usr_…; find it on the Identities page."
          required
          value={sub}
          onValue={setSub}
          pattern="usr_[A-Za-z0-9_\-]{1,64}"
        />
        <Field id="member-roles" label="Roles" required value={roles} onValue={setRoles} />
        <button type="submit" disabled={action.busy}>
          Add member
        </button>
      </form>
    </>
  );
}
