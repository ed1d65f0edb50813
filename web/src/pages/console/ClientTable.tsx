import type { Client } from './types.ts';

/** The registered clients, each row with its actions; buttons carry the client's name so each is unambiguous. */
export function ClientTable({
  clients,
  busy,
  onEdit,
  onDelete,
  onRotate,
}: {
  clients: Client[];
  busy: boolean;
  onEdit: (client: Client) => void;
  onDelete: (client: Client) => void;
  onRotate: (client: Client) => void;
}) {
  return (
    <table>
      <caption>{clients.length} client(s)</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Client ID</th>
          <th scope="col">Kind</th>
          <th scope="col">Redirect URIs</th>
          <th scope="col">Scopes</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {clients.map((c) => (
          <tr key={c.client_id}>
            <td>{c.name}</td>
            <td>
              <code>{c.client_id}</code>
            </td>
            <td>{c.kind}</td>
            <td>{c.redirect_uris.join(' ')}</td>
            <td>{c.scopes.join(' ')}</td>
            <td>
              <div class="actions">
                <button
                  type="button"
                  id={`edit-${c.client_id}`}
                  aria-label={`Edit ${c.name}`}
                  onClick={() => onEdit(c)}
                >
                  Edit
                </button>
                {(c.kind === 'web' || c.kind === 'service') && (
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Rotate secret of ${c.name}`}
                    onClick={() => onRotate(c)}
                    disabled={busy}
                  >
                    Rotate secret
                  </button>
                )}
                <button
                  type="button"
                  class="secondary"
                  id={`delete-${c.client_id}`}
                  aria-label={`Delete ${c.name}`}
                  onClick={() => onDelete(c)}
                >
                  Delete
                </button>
              </div>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
