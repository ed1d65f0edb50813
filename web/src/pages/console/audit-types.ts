// Shapes of GET /admin/audit and GET /admin/audit/verify (docs/admin.md "Audit log and status").
export interface AuditRecord {
  id: string;
  occurred_at: string;
  event: string;
  actor: string | null;
  /** The actor's current name (a person's display name, a client's name), or null when unknown. */
  actor_name: string | null;
  subject: string | null;
  subject_name: string | null;
  client_ip: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
  chain: string;
  seq: number;
}

export interface BrokenRecord {
  chain: string;
  seq: number;
  record_id: string | null;
  reason: string;
}

export interface ChainStatus {
  ok: boolean;
  chains: number;
  records: number;
  checked_at: string;
  first_broken: BrokenRecord | null;
  breaks: BrokenRecord[];
  pending_records: number;
  oldest_pending_at: string | null;
}

export interface AuditFilters {
  event: string;
  actor: string;
  subject: string;
  /** yyyy-mm-dd from a date input, in the browser's time zone; empty for no bound. */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilters = { event: '', actor: '', subject: '', from: '', to: '' };

/** The audit log's path for the filters: dates become instants (from: start of that day; to: start of the next). */
export function auditQuery(filters: AuditFilters): string {
  const query = new URLSearchParams();
  for (const key of ['event', 'actor', 'subject'] as const) {
    const value = filters[key].trim();
    if (value) query.set(key, value);
  }
  if (filters.from) query.set('since', new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.to) {
    const end = new Date(`${filters.to}T00:00:00`);
    end.setDate(end.getDate() + 1);
    query.set('until', end.toISOString());
  }
  const text = query.toString();
  return text ? `/admin/audit?${text}` : '/admin/audit';
}
