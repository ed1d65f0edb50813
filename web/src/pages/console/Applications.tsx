import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { StatusNotice } from '../../components/StatusNotice.tsx';
import { useAction } from '../../hooks/use-api.ts';
import { useOutcomeFocus } from '../../hooks/use-outcome-focus.ts';
import { usePagedList } from '../../hooks/use-paged-list.ts';
import { ApplicationEditForm } from './ApplicationEditForm.tsx';
import { ApplicationTable } from './ApplicationTable.tsx';
import { ConfirmDelete } from './ConfirmDelete.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { EnvironmentSelect } from './EnvironmentSelect.tsx';
import { problemFor } from './field-problems.ts';
import { ShowMore } from './ShowMore.tsx';
import type { Application, Environment } from './types.ts';
import { useRecordPanel } from './use-record-panel.ts';

export function Applications() {
  const list = usePagedList<Application>('/admin/applications', 'applications');
  const changes = useRecordPanel((a: Application) => a.id, list.reload);
  const action = useAction();
  const form = useOutcomeFocus<HTMLFormElement>();
  const [identifier, setIdentifier] = useState('');
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>('production');
  // An application signs nobody in until it has a client: the notice of a new one leads on to adding that client.
  const [fresh, setFresh] = useState<Application | null>(null);

  const create = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() =>
      api<Application>('POST', '/admin/applications', { identifier, name, environment }),
    );
    if (created) {
      setIdentifier('');
      setName('');
      setFresh(created);
      changes.finished(`Created application ${created.identifier}.`);
    } else form.settled();
  };

  const { panel } = changes;
  return (
    <ConsoleLayout section="applications" title="Applications" access={list.error}>
      <div ref={changes.noticesRef}>
        {fresh && changes.done === `Created application ${fresh.identifier}.` ? (
          <div class="notice notice-done" role="status" tabIndex={-1} data-outcome>
            <p>
              Created application {fresh.identifier}. Next, add a client for it: the app signs people in through its
              client.
            </p>
            <p>
              <a class="button" href={`/admin/console/clients?application=${encodeURIComponent(fresh.id)}#new-client`}>
                Add a client
              </a>
            </p>
          </div>
        ) : (
          <StatusNotice message={changes.done} />
        )}
      </div>
      <LoadState loading={list.loading} error={list.error} />
      {list.items?.length === 0 && (
        <EmptyState>
          No applications yet. Register your product below (an application groups its clients), then add a client for
          it.
        </EmptyState>
      )}
      {!!list.items?.length && (
        <ApplicationTable
          applications={list.items}
          more={list.more}
          onEdit={(a) => changes.open('edit', a)}
          onDelete={(a) => changes.open('delete', a)}
        />
      )}
      <ShowMore list={list} noun="applications" />
      {panel?.mode === 'edit' && (
        <ApplicationEditForm
          key={panel.record.id}
          application={panel.record}
          onSaved={(a) => changes.finished(`Saved application ${a.identifier}.`)}
          onCancel={changes.cancel}
        />
      )}
      {panel?.mode === 'delete' && (
        <ConfirmDelete
          key={panel.record.id}
          noun="application"
          name={panel.record.identifier}
          path={`/admin/applications/${encodeURIComponent(panel.record.id)}`}
          consequence="Gatehouse refuses while the application still has clients: delete them first."
          onDeleted={() => changes.finished(`Deleted application ${panel.record.identifier}.`)}
          onCancel={changes.cancel}
        />
      )}
      <form onSubmit={create} aria-labelledby="new-application" ref={form.ref}>
        <h2 id="new-application">New application</h2>
        <ErrorNotice error={action.error} shownFields={['identifier', 'name']} />
        <Field
          id="identifier"
          label="Identifier"
          hint="Lowercase letters, digits and dashes, e.g. billing-web."
          required
          value={identifier}
          onValue={setIdentifier}
          error={problemFor(action.error, 'identifier')}
        />
        <Field
          id="name"
          label="Name"
          required
          value={name}
          onValue={setName}
          error={problemFor(action.error, 'name')}
        />
        <EnvironmentSelect id="environment" value={environment} onValue={setEnvironment} />
        <button type="submit" disabled={action.busy}>
          Create application
        </button>
      </form>
    </ConsoleLayout>
  );
}
