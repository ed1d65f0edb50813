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
import { ConfirmDelete } from './ConfirmDelete.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { problemFor } from './field-problems.ts';
import { ResourceEditForm } from './ResourceEditForm.tsx';
import { ResourceTable } from './ResourceTable.tsx';
import { ShowMore } from './ShowMore.tsx';
import { type Resource, splitList } from './types.ts';
import { useRecordPanel } from './use-record-panel.ts';

export function Resources() {
  const list = usePagedList<Resource>('/admin/resources', 'resources');
  const changes = useRecordPanel((r: Resource) => r.id, list.reload);
  const action = useAction();
  const form = useOutcomeFocus<HTMLFormElement>();
  const [audience, setAudience] = useState('');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState('');

  const create = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() =>
      api<Resource>('POST', '/admin/resources', { audience, name, scopes: splitList(scopes) }),
    );
    if (created) {
      setAudience('');
      setName('');
      setScopes('');
      changes.finished(`Created resource ${created.audience}.`);
    } else form.settled();
  };

  const { panel } = changes;
  return (
    <ConsoleLayout section="resources" title="Protected API resources" access={list.error}>
      <div ref={changes.noticesRef}>
        <StatusNotice message={changes.done} />
      </div>
      <LoadState loading={list.loading} error={list.error} />
      {list.items?.length === 0 && (
        <EmptyState>
          No protected APIs yet. Register an API below with its audience and scopes so clients can get access tokens for
          it.
        </EmptyState>
      )}
      {!!list.items?.length && (
        <ResourceTable
          resources={list.items}
          more={list.more}
          onEdit={(r) => changes.open('edit', r)}
          onDelete={(r) => changes.open('delete', r)}
        />
      )}
      <ShowMore list={list} noun="resources" />
      {panel?.mode === 'edit' && (
        <ResourceEditForm
          key={panel.record.id}
          resource={panel.record}
          onSaved={(r) => changes.finished(`Saved resource ${r.audience}.`)}
          onCancel={changes.cancel}
        />
      )}
      {panel?.mode === 'delete' && (
        <ConfirmDelete
          key={panel.record.id}
          noun="resource"
          name={panel.record.audience}
          path={`/admin/resources/${encodeURIComponent(panel.record.id)}`}
          consequence="Gatehouse refuses while a service client is still provisioned for it: update those clients first."
          onDeleted={() => changes.finished(`Deleted resource ${panel.record.audience}.`)}
          onCancel={changes.cancel}
        />
      )}
      <form onSubmit={create} aria-labelledby="new-resource" ref={form.ref}>
        <h2 id="new-resource">New resource</h2>
        <ErrorNotice error={action.error} shownFields={['audience', 'name', 'scopes']} />
        <Field
          id="audience"
          label="Audience"
          hint="The API's exact absolute URI, e.g. https://api.example.com/billing."
          required
          value={audience}
          onValue={setAudience}
          error={problemFor(action.error, 'audience')}
        />
        <Field
          id="resource-name"
          label="Name"
          required
          value={name}
          onValue={setName}
          error={problemFor(action.error, 'name')}
        />
        <Field
          id="resource-scopes"
          label="Scopes"
          hint="Separated by spaces, e.g. billing:read billing:write."
          required
          value={scopes}
          onValue={setScopes}
          error={problemFor(action.error, 'scopes', splitList(scopes))}
        />
        <button type="submit" disabled={action.busy}>
          Create resource
        </button>
      </form>
    </ConsoleLayout>
  );
}
