// The only SQL that reads audit_events for people: the administration API's filtered, keyset-paged listing.
// (Appending lives in audit.ts and the chain walk in verify.ts, each a single statement tied to its algorithm.)
import type { Executor } from '../db/pool.ts';

export interface AuditRecord {
  /** Row id; also the paging key (ids grow in the order records were written). */
  id: string;
  chain: string;
  seq: number;
  occurredAt: Date;
  event: string;
  actor: string | null;
  subject: string | null;
  clientIp: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  event?: string | undefined;
  actor?: string | undefined;
  subject?: string | undefined;
  /** Inclusive lower bound on occurred_at. */
  since?: Date | undefined;
  /** Exclusive upper bound on occurred_at. */
  until?: Date | undefined;
  /** Only records older (smaller id) than this one: the cursor of the previous page. */
  beforeId?: string | undefined;
  limit: number;
}

interface Row {
  id: string;
  chain: string;
  seq: string;
  occurred_at: Date;
  event: string;
  actor: string | null;
  subject: string | null;
  client_ip: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

/** Newest first. Each filter is an equality or range on an indexed column (migration 0008), so a page is a range scan. */
export async function listAuditRecords(sql: Executor, filter: AuditFilter): Promise<AuditRecord[]> {
  const rows = await sql<Row[]>`
    select id::text, chain, seq::text, occurred_at, event, actor, subject, client_ip, request_id, details
    from audit_events
    where true
      ${filter.event === undefined ? sql`` : sql`and event = ${filter.event}`}
      ${filter.actor === undefined ? sql`` : sql`and actor = ${filter.actor}`}
      ${filter.subject === undefined ? sql`` : sql`and subject = ${filter.subject}`}
      ${filter.since === undefined ? sql`` : sql`and occurred_at >= ${filter.since}`}
      ${filter.until === undefined ? sql`` : sql`and occurred_at < ${filter.until}`}
      ${filter.beforeId === undefined ? sql`` : sql`and id < ${filter.beforeId}::bigint`}
    order by audit_events.id desc
    limit ${filter.limit}`;
  return rows.map((r) => ({
    id: r.id,
    chain: r.chain,
    seq: Number(r.seq),
    occurredAt: r.occurred_at,
    event: r.event,
    actor: r.actor,
    subject: r.subject,
    clientIp: r.client_ip,
    requestId: r.request_id,
    details: r.details,
  }));
}
