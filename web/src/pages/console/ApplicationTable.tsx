import type { Application } from './types.ts';

/** The registered applications, each row with Edit and Delete buttons named for the application. */
export function ApplicationTable({
  applications,
  onEdit,
  onDelete,
}: {
  applications: Application[];
  onEdit: (application: Application) => void;
  onDelete: (application: Application) => void;
}) {
  return (
    <table>
      <caption>{applications.length} application(s)</caption>
      <thead>
        <tr>
          <th scope="col">Identifier</th>
          <th scope="col">Name</th>
          <th scope="col">Environment</th>
          <th scope="col">ID</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {applications.map((a) => (
          <tr key={a.id}>
            <td>{a.identifier}</td>
            <td>{a.name}</td>
            <td>{a.environment}</td>
            <td>
              <code>{a.id}</code>
            </td>
            <td>
              <div class="actions">
                <button type="button" id={`edit-${a.id}`} aria-label={`Edit ${a.identifier}`} onClick={() => onEdit(a)}>
                  Edit
                </button>
                <button
                  type="button"
                  class="secondary"
                  id={`delete-${a.id}`}
                  aria-label={`Delete ${a.identifier}`}
                  onClick={() => onDelete(a)}
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
