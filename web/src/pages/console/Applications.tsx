import { useState } from 'preact/hooks';
import { api } from '../../api.ts';
import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { useAction, useApi } from '../../hooks/use-api.ts';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import type { Application, Environment } from './types.ts';

export function Applications() {
  const list = useApi<{ applications: Application[] }>('/admin/applications');
  const action = useAction();
  const [identifier, setIdentifier] = useState('');
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState<Environment>('production');

  const create = async (event: Event) => {
    event.preventDefault();
    const created = await action.run(() =>
      api<Application>('POST', '/admin/applications', { identifier, name, environment }),
    );
    if (created) {
      setIdentifier('');
      setName('');
      list.reload();
    }
  };

  return (
    <ConsoleLayout section="applications" title="Applications" access={list.error}>
      <LoadState loading={list.loading} error={list.error} />
      {list.data && (
        <table>
          <caption>{list.data.applications.length} application(s)</caption>
          <thead>
            <tr>
              <th scope="col">Identifier</th>
              <th scope="col">Name</th>
              <th scope="col">Environment</th>
              <th scope="col">ID</th>
            </tr>
          </thead>
          <tbody>
            {list.data.applications.map((a) => (
              <tr key={a.id}>
                <td>{a.identifier}</td>
                <td>{a.name}</td>
                <td>{a.environment}</td>
                <td>
                  <code>{a.id}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form onSubmit={create} aria-labelledby="new-application">
        <h2 id="new-application">New application</h2>
        <ErrorNotice error={action.error} />
        <Field
          id="identifier"
          label="Identifier"
          hint="Lowercase letters, digits and dashes, e.g. billing-web."
          required
          value={identifier}
          onValue={setIdentifier}
        />
        <Field id="name" label="Name" required value={name} onValue={setName} />
        <div class="field">
          <label for="environment">Environment</label>
          <select
            id="environment"
            value={environment}
            onChange={(e) => setEnvironment(e.currentTarget.value as Environment)}
          >
            <option value="production">production</option>
            <option value="staging">staging</option>
            <option value="development">development</option>
          </select>
        </div>
        <button type="submit" disabled={action.busy}>
          Create application
        </button>
      </form>
    </ConsoleLayout>
  );
}
