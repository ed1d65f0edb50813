import { counted } from './count-words.ts';
import { ActionsHeader, RowActions } from './RowActions.tsx';
import type { Resource } from './types.ts';

/** The registered resources, each row with Edit and Delete buttons named for the resource. */
export function ResourceTable({
  resources,
  more = false,
  onEdit,
  onDelete,
}: {
  resources: Resource[];
  /** Whether the server has more than these (the page offers "Show more"). */
  more?: boolean;
  onEdit: (resource: Resource) => void;
  onDelete: (resource: Resource) => void;
}) {
  return (
    <table>
      <caption>
        {counted(resources.length, { one: 'resource', other: 'resources' })}
        {more ? '; more are available' : ''}
      </caption>
      <thead>
        <tr>
          <th scope="col">Audience</th>
          <th scope="col">Name</th>
          <th scope="col">Scopes</th>
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {resources.map((r) => (
          <tr key={r.id}>
            <td data-label="Audience">
              <code>{r.audience}</code>
            </td>
            <td data-label="Name">{r.name}</td>
            <td data-label="Scopes">{r.scopes.join(' ')}</td>
            <RowActions id={r.id} label={r.name} onEdit={() => onEdit(r)} onDelete={() => onDelete(r)} />
          </tr>
        ))}
      </tbody>
    </table>
  );
}
