import { useState } from 'preact/hooks';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Field } from '../../components/Field.tsx';
import { LoadState } from '../../components/Loading.tsx';
import { usePagedList } from '../../hooks/use-paged-list.ts';
import { type AuditFilters, type AuditRecord, auditQuery, NO_FILTERS } from './audit-types.ts';
import { ChainPanel } from './ChainPanel.tsx';
import { ConsoleLayout } from './ConsoleLayout.tsx';
import { ShowMore } from './ShowMore.tsx';

const detailText = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');

function DateField({
  id,
  label,
  value,
  onValue,
}: {
  id: string;
  label: string;
  value: string;
  onValue: (v: string) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={id} type="date" value={value} onInput={(e) => onValue(e.currentTarget.value)} />
    </div>
  );
}

/** A person's or record's name, with its id on hover (and in full when the name is unknown). */
function Named({ id, name }: { id: string | null; name: string | null }) {
  if (!id) return <>—</>;
  if (!name) return <code>{id}</code>;
  return (
    <span title={id} data-id={id}>
      {name}
    </span>
  );
}

export function AuditLog() {
  const [form, setForm] = useState<AuditFilters>(NO_FILTERS);
  const [applied, setApplied] = useState<AuditFilters>(NO_FILTERS);
  // Newest first; "Show more records" appends older pages. New filters start again from one page, and applying the
  // same ones again reloads (records keep arriving).
  const list = usePagedList<AuditRecord>(auditQuery(applied), 'records');

  const set = (key: keyof AuditFilters) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const apply = (event: Event) => {
    event.preventDefault();
    setApplied({ ...form });
    list.reload();
  };
  const clear = () => {
    setForm(NO_FILTERS);
    setApplied(NO_FILTERS);
    list.reload();
  };
  const records = list.items && !list.loading ? list.items : null;

  return (
    <ConsoleLayout section="audit" title="Audit log" access={list.error}>
      <form class="filters" onSubmit={apply} aria-labelledby="audit-filters">
        <h2 id="audit-filters">Filter</h2>
        <Field
          id="audit-event"
          label="Event"
          hint="The exact event name, e.g. signin.succeeded or client.created."
          value={form.event}
          onValue={set('event')}
        />
        <Field
          id="audit-actor"
          label="Actor"
          hint="Who did it: an identity (usr_…) or a client id."
          value={form.actor}
          onValue={set('actor')}
        />
        <Field
          id="audit-subject"
          label="Subject"
          hint="What it was done to."
          value={form.subject}
          onValue={set('subject')}
        />
        <div class="field-row">
          <DateField id="audit-from" label="From (date)" value={form.from} onValue={set('from')} />
          <DateField id="audit-to" label="To (date, inclusive)" value={form.to} onValue={set('to')} />
        </div>
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={clear}>
          Clear
        </button>
      </form>

      <LoadState loading={list.loading} error={list.error} />
      {records?.length === 0 && (
        <EmptyState>
          {auditQuery(applied) === '/admin/audit'
            ? 'Nothing is recorded yet. Sign-ins and every administrative change appear here.'
            : 'No record matches these filters. Clear them to see the whole log.'}
        </EmptyState>
      )}
      {!!records?.length && (
        <table class="audit">
          <caption>
            {records.length} record(s), newest first{list.more ? '; older records are available' : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">Actor</th>
              <th scope="col">Subject</th>
              <th scope="col">Client IP</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={r.id}>
                <td data-label="Time">
                  <time dateTime={r.occurred_at}>{new Date(r.occurred_at).toLocaleString()}</time>
                </td>
                <td data-label="Event">{r.event}</td>
                <td data-label="Actor">
                  <Named id={r.actor} name={r.actor_name} />
                </td>
                <td data-label="Subject">
                  <Named id={r.subject} name={r.subject_name} />
                </td>
                <td data-label="Client IP">{r.client_ip ?? '—'}</td>
                <td data-label="Details">
                  {detailText(r.details)}
                  {r.request_id && <span class="hint"> Request ID {r.request_id}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {records && <ShowMore list={list} noun="records" />}

      <ChainPanel />
    </ConsoleLayout>
  );
}
