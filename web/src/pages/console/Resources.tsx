import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { type Resource, splitList } from './types.ts';

export function Resources() {
  const list = useApi<{ resources: Resource[] }>('/admin/resources');
  const action = useAction();
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
      list.reload();
    }
  };

  return (
    <ConsoleLayout section="resources" title="Protected API resources" access={list.error}>
      <LoadState loading={list.loading} error={list.error} />
      {list.data && (
        <table>
          <caption>{list.data.resources.length} resource(s)</caption>
          <thead>
            <tr>
              <th scope="col">Audience</th>
              <th scope="col">Name</th>
              <th scope="col">Scopes</th>
            </tr>
          </thead>
          <tbody>
            {list.data.resources.map((r) => (
              <tr key={r.id}>
                <td>
                  <code>{r.audience}</code>
                </td>
                <td>{r.name}</td>
                <td>{r.scopes.join(' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={create} aria-labelledby="new-resource">
        <h2 id="new-resource">New resource</h2>
        <ErrorNotice error={action.error} />
        <Field
          id="audience"
          label="Audience"
          hint="The API's exact absolute URI, e.g. https://api.example.com/billing."
          required
          value={audience}
          onValue={setAudience}
        />
        <Field id="resource-name" label="Name" required value={name} onValue={setName} />
        <Field
          id="resource-scopes"
          label="Scopes"
          hint="Separated by spaces, e.g. billing:read billing:write."
          required
          value={scopes}
          onValue={setScopes}
        />
        <button type="submit" disabled={action.busy}>
          Create resource
        </button>
      </form>
    </ConsoleLayout>
  );
}
