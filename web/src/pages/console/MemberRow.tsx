import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import type { useAction } from '../../hooks/use-api.ts';
import { type Member, splitList } from './types.ts';

/** One member: roles edited in place (space-separated), saved with PUT; removal after a confirmation. */
export function MemberRow({
  organizationId,
  member,
  action,
  onChanged,
}: {
  organizationId: string;
  member: Member;
  action: ReturnType<typeof useAction>;
  onChanged: (message: string) => void;
}) {
  const [roles, setRoles] = useState(member.roles.join(' '));
  const name = member.display_name || member.email || member.sub;
  const path = `/admin/organizations/${encodeURIComponent(organizationId)}/members/${encodeURIComponent(member.sub)}`;
  const inputId = `roles-${member.sub}`;

  const save = async (event: Event) => {
    event.preventDefault();
    if (await action.run(() => api('PUT', path, { roles: splitList(roles) }))) onChanged(`Saved the roles of ${name}.`);
  };
  const remove = async () => {
    if (!confirm(`Remove ${name} from the organization?`)) return;
    // A removal answers 204 with no body, so success is marked explicitly.
    const removed = await action.run(async () => {
      await api('DELETE', path, {});
      return true;
    });
    if (removed) onChanged(`Removed ${name}.`);
  };

  return (
    <tr>
      <td data-label="Person">
        <a href={`/admin/console/identities/${encodeURIComponent(member.sub)}`}>{name}</a>
        <br />
        <span class="hint">{member.email}</span>
      </td>
      <td data-label="State">
        {member.state} · {member.ial}
      </td>
      <td data-label="Roles">
        <form class="roles-form" onSubmit={save}>
          <label class="visually-hidden" for={inputId}>
            Roles for {name}
          </label>
          <input
            id={inputId}
            value={roles}
            onInput={(e) => setRoles(e.currentTarget.value)}
            required
            maxLength={1300}
          />
          <button type="submit" disabled={action.busy} aria-label={`Save roles for ${name}`}>
            Save
          </button>
        </form>
      </td>
      <td>
        <button
          type="button"
          class="secondary"
          onClick={() => void remove()}
          disabled={action.busy}
          aria-label={`Remove ${name}`}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}
