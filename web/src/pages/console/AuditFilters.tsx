// The audit log's filters as one line that opens: the line says which filters apply, so the table stays the first
// thing on the page; opening it shows the form.
import { useState } from 'preact/hooks';
import { Field } from '../../components/Field.tsx';
import { type AuditFilters as Filters, NO_FILTERS } from './audit-types.ts';

/** Events people filter by most, offered as suggestions; the field takes any event name. */
const COMMON_EVENTS = [
  'signin.succeeded',
  'signin.failed',
  'signin.locked',
  'signup.created',
  'session.revoked',
  'client.created',
  'client.updated',
  'identity.suspended',
  'membership.roles_changed',
];

const LABELS: Record<keyof Filters, string> = {
  event: 'event',
  actor: 'actor',
  subject: 'subject',
  from: 'from',
  to: 'to',
};

/** "event signin.failed, from 2026-11-01", or "none". */
export function filterSummary(filters: Filters): string {
  const set = (Object.keys(LABELS) as (keyof Filters)[]).filter((k) => filters[k].trim());
  return set.length === 0 ? 'none' : set.map((k) => `${LABELS[k]} ${filters[k].trim()}`).join(', ');
}

function DateField(props: { id: string; label: string; value: string; onValue: (v: string) => void }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.id}
        type="date"
        value={props.value}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    </div>
  );
}

export function AuditFilters({ applied, onApply }: { applied: Filters; onApply: (filters: Filters) => void }) {
  const [form, setForm] = useState<Filters>(applied);
  const [open, setOpen] = useState(false);
  const set = (key: keyof Filters) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const apply = (event: Event) => {
    event.preventDefault();
    onApply({ ...form });
  };
  const clear = () => {
    setForm(NO_FILTERS);
    onApply(NO_FILTERS);
  };
  return (
    <details class="audit-filters" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span class="audit-filters-title">Filters</span>{' '}
        <span class="audit-filters-applied" data-testid="filters-applied">
          {filterSummary(applied)}
        </span>
      </summary>
      <form onSubmit={apply} aria-label="Filter the audit log">
        <div class="audit-filter-fields">
          <Field
            id="audit-event"
            label="Event"
            hint="An exact event name, e.g. signin.failed."
            value={form.event}
            onValue={set('event')}
            list="audit-events"
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
          <DateField id="audit-from" label="From (date)" value={form.from} onValue={set('from')} />
          <DateField id="audit-to" label="To (date, inclusive)" value={form.to} onValue={set('to')} />
        </div>
        <datalist id="audit-events">
          {COMMON_EVENTS.map((e) => (
            <option key={e} value={e} />
          ))}
        </datalist>
        <button type="submit">Apply filters</button>
        <button type="button" class="secondary" onClick={clear}>
          Clear
        </button>
      </form>
    </details>
  );
}
