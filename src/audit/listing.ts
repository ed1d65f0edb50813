// What GET /admin/audit accepts and answers: the query's meaning (bounds, dates, cursor) and the records' wire shape.
// The route schema checks types and lengths; this file checks what a schema cannot say and names the field.

import type { Executor } from '../db/pool.ts';
import type { FieldProblem } from '../http/errors.ts';
import { invalidFields } from '../http/validation-messages.ts';
import { Type } from '../schema/type.ts';
import { parseDateTime } from './date-time.ts';
import { type AuditFilter, type AuditRecord, listAuditRecords } from './store.ts';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

const Text = Type.String({ minLength: 1, maxLength: 200 });
/** Query strings arrive as text (types are never coerced); a repeated parameter arrives as an array and fails here. */
export const AuditQuerySchema = Type.Object(
  {
    event: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    actor: Type.Optional(Text),
    subject: Type.Optional(Text),
    since: Type.Optional(Type.String({ maxLength: 40 })),
    until: Type.Optional(Type.String({ maxLength: 40 })),
    limit: Type.Optional(Type.String({ maxLength: 10 })),
    cursor: Type.Optional(Type.String({ maxLength: 40 })),
  },
  { additionalProperties: false },
);

export type AuditQuery = Partial<
  Record<'event' | 'actor' | 'subject' | 'since' | 'until' | 'limit' | 'cursor', string>
>;

/** Turns the validated query into a filter, or throws invalid_request naming every field that is wrong. */
export function parseAuditQuery(query: AuditQuery): AuditFilter {
  const problems: FieldProblem[] = [];
  const problem = (field: string, text: string) => problems.push({ path: `querystring.${field}`, problem: text });

  let limit = DEFAULT_LIMIT;
  if (query.limit !== undefined) {
    limit = /^[0-9]{1,4}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) problem('limit', `must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  const dates: { since?: Date; until?: Date } = {};
  for (const field of ['since', 'until'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    const date = parseDateTime(value);
    if (date) dates[field] = date;
    else problem(field, 'must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T00:00:00Z');
  }
  if (dates.since && dates.until && dates.since >= dates.until) problem('until', 'must be later than since');
  if (query.cursor !== undefined && !/^[1-9][0-9]{0,17}$/.test(query.cursor))
    problem('cursor', 'is not a cursor this API returned');
  if (query.event !== undefined && !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(query.event))
    problem('event', 'must be an event name such as signin.succeeded');

  if (problems.length > 0) throw invalidFields(problems);
  return {
    event: query.event,
    actor: query.actor,
    subject: query.subject,
    since: dates.since,
    until: dates.until,
    beforeId: query.cursor,
    limit,
  };
}

export interface AuditPage {
  /** Each record with the names its actor and subject have now (null when the id names nothing we know). */
  records: (ReturnType<typeof toWire> & { actor_name: string | null; subject_name: string | null })[];
  /** Pass as `cursor` for the next (older) page; null when this page is the last. */
  next_cursor: string | null;
}

const toWire = (r: AuditRecord) => ({
  id: r.id,
  occurred_at: r.occurredAt.toISOString(),
  event: r.event,
  actor: r.actor,
  subject: r.subject,
  client_ip: r.clientIp,
  request_id: r.requestId,
  details: r.details,
  chain: r.chain,
  seq: r.seq,
});

/** Names for ids found in records (people, clients, applications...), by id; given by app.ts from their modules. */
export type NamesOf = (ids: string[]) => Promise<Map<string, string>>;

export async function auditPage(sql: Executor, query: AuditQuery, namesOf: NamesOf): Promise<AuditPage> {
  const filter = parseAuditQuery(query);
  // One row more than asked says whether another page exists, without a count over the whole log.
  const rows = await listAuditRecords(sql, { ...filter, limit: filter.limit + 1 });
  const page = rows.slice(0, filter.limit);
  const ids = [...new Set(page.flatMap((r) => [r.actor, r.subject]).filter((id) => id !== null))];
  const names = await namesOf(ids);
  return {
    records: page.map((r) => ({
      ...toWire(r),
      actor_name: r.actor === null ? null : (names.get(r.actor) ?? null),
      subject_name: r.subject === null ? null : (names.get(r.subject) ?? null),
    })),
    next_cursor: rows.length > filter.limit ? (page.at(-1)?.id ?? null) : null,
  };
}
