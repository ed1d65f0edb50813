import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { ClientForm } from './ClientForm.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import type { Application, Client } from './types.ts';

export function Clients() {
  const list = useApi<{ clients: Client[] }>('/admin/clients');
  const applications = useApi<{ applications: Application[] }>('/admin/applications');
  const rotation = useAction();
  // Held only in component state: gone on reload, as the server will never send it again.
  const [secret, setSecret] = useState<{ clientId: string; value: string } | null>(null);

  const created = (client: Client) => {
    if (client.client_secret) setSecret({ clientId: client.client_id, value: client.client_secret });
    list.reload();
  };

  const rotate = async (client: Client) => {
    if (!confirm(`Rotate the secret of ${client.name}? The current secret stops working at once.`)) return;
    const rotated = await rotation.run(() =>
      api<Client>('POST', `/admin/clients/${encodeURIComponent(client.client_id)}/secret`, {}),
    );
    if (rotated?.client_secret) setSecret({ clientId: rotated.client_id, value: rotated.client_secret });
  };

  return (
    <ConsoleLayout section="clients" title="OAuth clients" access={list.error}>
      {secret && (
        <SecretOnce
          label={`Client secret for ${secret.clientId}`}
          secret={secret.value}
          onDone={() => setSecret(null)}
        />
      )}
      <ErrorNotice error={rotation.error} />
      <LoadState loading={list.loading} error={list.error} />
      {list.data && (
        <table>
          <caption>{list.data.clients.length} client(s)</caption>
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
            {list.data.clients.map((c) => (
              <tr key={c.client_id}>
                <td>{c.name}</td>
                <td>
                  <code>{c.client_id}</code>
                </td>
                <td>{c.kind}</td>
                <td>{c.redirect_uris.join(' ')}</td>
                <td>{c.scopes.join(' ')}</td>
                <td>
                  {(c.kind === 'web' || c.kind === 'service') && (
                    <button type="button" class="secondary" onClick={() => void rotate(c)} disabled={rotation.busy}>
                      Rotate secret
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {applications.data && <ClientForm applications={applications.data.applications} onCreated={created} />}
    </ConsoleLayout>
  );
}
