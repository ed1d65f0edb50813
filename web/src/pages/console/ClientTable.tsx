import { counted } from './count-words.ts';
import { ActionsHeader, RowActions } from './RowActions.tsx';
import type { Client } from './types.ts';

/** The registered clients, each row with its actions; buttons carry the client's name so each is unambiguous. */
export function ClientTable({
  clients,
  more = false,
  busy,
  onEdit,
  onDelete,
  onRotate,
}: {
  clients: Client[];
  /** Whether the server has more than these (the page offers "Show more"). */
  more?: boolean;
  busy: boolean;
  onEdit: (client: Client) => void;
  onDelete: (client: Client) => void;
  onRotate: (client: Client) => void;
}) {
  return (
    <table>
      <caption>
        {counted(clients.length, { one: 'client', other: 'clients' })}
        {more ? '; more are available' : ''}
      </caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Client ID</th>
          <th scope="col">Kind</th>
          <th scope="col">Redirect URIs</th>
          <th scope="col">Scopes</th>
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {clients.map((c) => (
          <tr key={c.client_id}>
            <td data-label="Name">{c.name}</td>
            <td data-label="Client ID">
              <code>{c.client_id}</code>
            </td>
            <td data-label="Kind">{c.kind}</td>
            <td data-label="Redirect URIs">{c.redirect_uris.join(' ')}</td>
            <td data-label="Scopes">{c.scopes.join(' ')}</td>
            <RowActions id={c.client_id} label={c.name} onEdit={() => onEdit(c)} onDelete={() => onDelete(c)}>
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
            </RowActions>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
