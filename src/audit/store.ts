// The only SQL for audit_events, audit_chain_heads and audit_pending: appending a record with its chain head, the
// records of administrative changes waiting for a chain, walking the chains for verification, and the administration
// API's filtered, keyset-paged listing.
import type { Executor, Sql } from '../db/pool.ts';
import type { ChainRecord } from './chain.ts';

/**
 * One statement (atomic on its own): the record and the chain head move together, in one round trip, because
 * appends are serialized per process and sit on the sign-in hot path.
 */
export async function appendAuditRecord(
  sql: Executor,
  record: ChainRecord,
  prevHash: string,
  hash: string,
): Promise<void> {
  await sql`
    with appended as (
      insert into audit_events (chain, seq, occurred_at, event, actor, subject, client_ip, request_id, details, prev_hash, hash)
      values (${record.chain}, ${record.seq}, ${record.occurredAt}, ${record.event}, ${record.actor}, ${record.subject},
              ${record.clientIp}, ${record.requestId}, ${sql.json(record.details as never)}, ${prevHash}, ${hash})
      returning chain, seq, hash)
    insert into audit_chain_heads (chain, seq, hash) select chain, seq, hash from appended
    on conflict (chain) do update set seq = excluded.seq, hash = excluded.hash, updated_at = now()`;
}

/** A record not yet in any chain: what ChainRecord holds but its place (chain and seq). */
export type PendingRecord = Omit<ChainRecord, 'chain' | 'seq'>;

/** In the caller's transaction: the record commits, or rolls back, with the change it describes. */
export async function insertPendingRecord(tx: Executor, record: PendingRecord): Promise<void> {
  await tx`
    insert into audit_pending (occurred_at, event, actor, subject, client_ip, request_id, details)
    values (${record.occurredAt}, ${record.event}, ${record.actor}, ${record.subject}, ${record.clientIp},
            ${record.requestId}, ${tx.json(record.details as never)})`;
}

/**
 * Removes and returns up to `limit` pending records, oldest first, for the caller's transaction to chain. The delete
 * is what makes each record chained once; SKIP LOCKED only spares a node waiting for rows another node is chaining.
 */
export async function takePendingRecords(tx: Executor, limit: number): Promise<PendingRecord[]> {
  const rows = await tx<Omit<StoredChainRow, 'chain' | 'seq' | 'prev_hash' | 'hash'>[]>`
    delete from audit_pending where id in (
      select id from audit_pending order by id limit ${limit} for update skip locked)
    returning id::text, occurred_at, event, actor, subject, client_ip, request_id, details`;
  // DELETE … RETURNING does not keep the subquery's order.
  return rows
    .sort((a, b) => Number(a.id) - Number(b.id))
    .map((r) => ({
      occurredAt: r.occurred_at.toISOString(),
      event: r.event,
      actor: r.actor,
      subject: r.subject,
      clientIp: r.client_ip,
      requestId: r.request_id,
      details: r.details,
    }));
}

/** How many records wait for a chain, and since when: unchained records carry no HMAC yet. */
export async function pendingSummary(sql: Executor): Promise<{ count: number; oldestAt: Date | null }> {
  const [row] = await sql<{ count: number; oldest_at: Date | null }[]>`
    select count(*)::int as count, min(occurred_at) as oldest_at from audit_pending`;
  return { count: row?.count ?? 0, oldestAt: row?.oldest_at ?? null };
}

export interface StoredChainRow {
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
  prev_hash: string;
  hash: string;
}

/** Every record, chain by chain in sequence order, fetched 500 at a time so memory stays flat. */
export function walkAuditChains(sql: Sql): AsyncIterable<StoredChainRow[]> {
  return sql<StoredChainRow[]>`
    select id::text, chain, seq::text, occurred_at, event, actor, subject, client_ip, request_id, details, prev_hash, hash
    from audit_events
    -- Qualified: a bare "seq" would sort by the text output column above (1, 10, 11, ..., 2) and report false gaps.
    order by audit_events.chain, audit_events.seq`.cursor(500);
}

export async function listChainHeads(sql: Sql): Promise<{ chain: string; seq: number; hash: string }[]> {
  const rows = await sql<
    { chain: string; seq: string; hash: string }[]
  >`select chain, seq::text, hash from audit_chain_heads`;
  return rows.map((r) => ({ chain: r.chain, seq: Number(r.seq), hash: r.hash }));
}

/** One chain's head, or null when the chain has no record yet. */
export async function findChainHead(sql: Sql, chain: string): Promise<{ seq: number; hash: string } | null> {
  const [head] = await sql<{ seq: string; hash: string }[]>`
    select seq::text, hash from audit_chain_heads where chain = ${chain}`;
  return head ? { seq: Number(head.seq), hash: head.hash } : null;
}

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

/** Newest first. Each filter is an equality or range on an indexed column (migration 0007), so a page is a range scan. */
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
