import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { SecretOnce } from '../../components/SecretOnce.tsx';
import { StatusNotice } from '../../components/StatusNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { usePagedList } from '../../hooks/use-paged-list.ts';
import { ClientEditForm } from './ClientEditForm.tsx';
import { ClientForm } from './ClientForm.tsx';
import { ClientTable } from './ClientTable.tsx';
import { ConfirmDelete } from './ConfirmDelete.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { ShowMore } from './ShowMore.tsx';
import type { Application, Client } from './types.ts';
import { useRecordPanel } from './use-record-panel.ts';

type ShownSecret = { clientId: string; value: string };

export function Clients() {
  const list = usePagedList<Client>('/admin/clients', 'clients');
  // Every application, however many pages: the new-client form's select must offer each one.
  const applications = usePagedList<Application>('/admin/applications', 'applications', { all: true });
  const rotation = useAction();
  const changes = useRecordPanel((c: Client) => c.client_id, list.reload);
  // Held only in component state: gone on reload, as the server will never send it again.
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  // A new form after each client created, so the next one does not start with the last one's URIs and choices.
  const [formGeneration, setFormGeneration] = useState(0);
  // "Add a client" after creating an application comes here with it chosen (?application=).
  const [chosenApplication] = useState(() => new URLSearchParams(location.search).get('application'));

  const finished = (message: string, shown: ShownSecret | null = null) => {
    rotation.clearError();
    setSecret(shown);
    changes.finished(message);
  };

  const created = (client: Client) => {
    setFormGeneration((n) => n + 1);
    finished(
      `Created client ${client.name}.`,
      client.client_secret ? { clientId: client.client_id, value: client.client_secret } : null,
    );
  };

  const rotate = async (client: Client) => {
    if (!confirm(`Rotate the secret of ${client.name}? The current secret stops working at once.`)) return;
    changes.clearDone();
    const rotated = await rotation.run(() =>
      api<Client>('POST', `/admin/clients/${encodeURIComponent(client.client_id)}/secret`, {}),
    );
    if (rotated?.client_secret)
      finished(`Rotated the secret of ${client.name}.`, { clientId: rotated.client_id, value: rotated.client_secret });
    else changes.settled();
  };

  const { panel } = changes;
  return (
    <ConsoleLayout section="clients" title="OAuth clients" access={list.error}>
      <div ref={changes.noticesRef}>
        {secret && (
          <SecretOnce
            label={`Client secret for ${secret.clientId}`}
            secret={secret.value}
            onDone={() => setSecret(null)}
          />
        )}
        <StatusNotice message={changes.done} />
        <ErrorNotice error={rotation.error} />
      </div>
      <LoadState loading={list.loading} error={list.error} />
      {list.items?.length === 0 && (
        <EmptyState>
          No clients yet. Create one below for each way your product signs people in (a web server, a browser app, a
          mobile app) or calls an API (a service).
        </EmptyState>
      )}
      {!!list.items?.length && (
        <ClientTable
          clients={list.items}
          more={list.more}
          busy={rotation.busy}
          onEdit={(client) => changes.open('edit', client)}
          onDelete={(client) => changes.open('delete', client)}
          onRotate={(client) => void rotate(client)}
        />
      )}
      <ShowMore list={list} noun="clients" />
      {panel?.mode === 'edit' && (
        <ClientEditForm
          key={panel.record.client_id}
          client={panel.record}
          onSaved={(client) => finished(`Saved client ${client.name}.`)}
          onCancel={changes.cancel}
        />
      )}
      {panel?.mode === 'delete' && (
        <ConfirmDelete
          key={panel.record.client_id}
          noun="client"
          name={panel.record.name}
          path={`/admin/clients/${encodeURIComponent(panel.record.client_id)}`}
          consequence="Its grants, authorization codes and refresh tokens end at once; access tokens already issued expire within minutes."
          onDeleted={() => finished(`Deleted client ${panel.record.name}.`)}
          onCancel={changes.cancel}
        />
      )}
      <ErrorNotice error={applications.error} />
      {applications.items && (
        <ClientForm
          key={formGeneration}
          applications={applications.items}
          initialApplication={formGeneration === 0 ? chosenApplication : null}
          onCreated={created}
        />
      )}
    </ConsoleLayout>
  );
}
