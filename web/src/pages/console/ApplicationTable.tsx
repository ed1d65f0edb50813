import { counted } from './count-words.ts';
import { ActionsHeader, RowActions } from './RowActions.tsx';
import type { Application } from './types.ts';

/** The registered applications, each row with Edit and Delete buttons named for the application. */
export function ApplicationTable({
  applications,
  more = false,
  onEdit,
  onDelete,
}: {
  applications: Application[];
  /** Whether the server has more than these (the page offers "Show more"). */
  more?: boolean;
  onEdit: (application: Application) => void;
  onDelete: (application: Application) => void;
}) {
  return (
    <table>
      <caption>
        {counted(applications.length, { one: 'application', other: 'applications' })}
        {more ? '; more are available' : ''}
      </caption>
      <thead>
        <tr>
          <th scope="col">Identifier</th>
          <th scope="col">Name</th>
          <th scope="col">Environment</th>
          <th scope="col">ID</th>
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {applications.map((a) => (
          <tr key={a.id}>
            <td data-label="Identifier">{a.identifier}</td>
            <td data-label="Name">{a.name}</td>
            <td data-label="Environment">{a.environment}</td>
            <td data-label="ID">
              <code>{a.id}</code>
            </td>
            <RowActions id={a.id} label={a.identifier} onEdit={() => onEdit(a)} onDelete={() => onDelete(a)} />
          </tr>
        ))}
      </tbody>
    </table>
  );
}
