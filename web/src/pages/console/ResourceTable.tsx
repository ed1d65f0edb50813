import type { Resource } from './types.ts';

/** The registered resources, each row with Edit and Delete buttons named for the resource. */
export function ResourceTable({
  resources,
  onEdit,
  onDelete,
}: {
  resources: Resource[];
  onEdit: (resource: Resource) => void;
  onDelete: (resource: Resource) => void;
}) {
  return (
    <table>
      <caption>{resources.length} resource(s)</caption>
      <thead>
        <tr>
          <th scope="col">Audience</th>
          <th scope="col">Name</th>
          <th scope="col">Scopes</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {resources.map((r) => (
          <tr key={r.id}>
            <td>
              <code>{r.audience}</code>
            </td>
            <td>{r.name}</td>
            <td>{r.scopes.join(' ')}</td>
            <td>
              <div class="actions">
                <button type="button" id={`edit-${r.id}`} aria-label={`Edit ${r.name}`} onClick={() => onEdit(r)}>
                  Edit
                </button>
                <button
                  type="button"
                  class="secondary"
                  id={`delete-${r.id}`}
                  aria-label={`Delete ${r.name}`}
                  onClick={() => onDelete(r)}
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
