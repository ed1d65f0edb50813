// The audit records of one page: a table on a wide screen, a compact card per record on a phone (audit.css). The
// actor null means nobody proven did it (a failed sign-in): it reads "Unknown", and the person tried is the subject.
import type { AuditRecord } from './audit-types.ts';

/** A person's or record's name, with its id on hover (and in full when the name is unknown). */
function Named({ id, name, unknown }: { id: string | null; name: string | null; unknown: string }) {
  if (!id) return <span class="unknown">{unknown}</span>;
  if (!name) return <code>{id}</code>;
  return (
    <span title={id} data-id={id}>
      {name}
    </span>
  );
}

function Details({ record }: { record: AuditRecord }) {
  const entries = Object.entries(record.details);
  if (entries.length === 0 && !record.request_id) return <>—</>;
  return (
    <dl class="audit-details">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt>{key}</dt>
          <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
      {record.request_id && (
        <div class="hint">
          <dt>request</dt>
          <dd>{record.request_id}</dd>
        </div>
      )}
    </dl>
  );
}

export function AuditTable({ records, caption }: { records: AuditRecord[]; caption: string }) {
  return (
    <table class="audit" data-testid="audit-records">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col" class="audit-time">
            Time
          </th>
          <th scope="col">Event</th>
          <th scope="col">Actor</th>
          <th scope="col">Subject</th>
          <th scope="col" class="audit-ip">
            Client IP
          </th>
          <th scope="col" class="audit-detail">
            Details
          </th>
        </tr>
      </thead>
      <tbody>
        {records.map((r) => (
          <tr key={r.id}>
            <td data-label="Time" class="audit-time">
              <time dateTime={r.occurred_at}>{new Date(r.occurred_at).toLocaleString()}</time>
            </td>
            <td data-label="Event" class="audit-event">
              {r.event}
            </td>
            <td data-label="Actor" class="audit-actor">
              <Named id={r.actor} name={r.actor_name} unknown="Unknown" />
            </td>
            <td data-label="Subject" class="audit-subject">
              <Named id={r.subject} name={r.subject_name} unknown="—" />
            </td>
            <td data-label="Client IP" class={r.client_ip ? 'audit-ip' : 'audit-ip audit-empty'}>
              {r.client_ip ?? '—'}
            </td>
            <td data-label="Details" class="audit-detail">
              <Details record={r} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
