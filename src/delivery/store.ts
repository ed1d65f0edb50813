// The only SQL for outbox_messages. Claims are one UPDATE over a FOR UPDATE SKIP LOCKED subselect, so
// workers on any number of nodes each take different rows; every later write names the claimant, so a
// worker whose lease has passed to another can no longer change the row.
import type { Executor } from '../db/pool.ts';

export type MessageState = 'pending' | 'sent' | 'dead';

export interface NewMessage {
  id: string;
  template: string;
  recipient: string;
  sealedBody: string;
}

export interface ClaimedMessage {
  id: string;
  template: string;
  recipient: string;
  sealed_body: string;
  /** Including the attempt this claim starts. */
  attempts: number;
}

/** Workers LISTEN here; PostgreSQL delivers the notification only when the enqueuing transaction commits. */
export const OUTBOX_CHANNEL = 'gatehouse_outbox';

export async function insertMessage(sql: Executor, message: NewMessage, now: Date): Promise<void> {
  await sql`
    insert into outbox_messages (id, template, recipient, sealed_body, next_attempt_at, created_at)
    values (${message.id}, ${message.template}, ${message.recipient}, ${message.sealedBody}, ${now}, ${now})`;
  await sql`select pg_notify(${OUTBOX_CHANNEL}, '')`;
}

/** Claims up to `limit` due messages that nobody holds (or whose holder's lease has passed). */
export async function claimDueMessages(
  sql: Executor,
  worker: string,
  limit: number,
  leaseUntil: Date,
  now: Date,
  /** Only these templates (a worker without a mail transport sends back-channel logouts only); null for all. */
  templates: readonly string[] | null = null,
): Promise<ClaimedMessage[]> {
  return sql<ClaimedMessage[]>`
    update outbox_messages set claimed_by = ${worker}, claim_expires_at = ${leaseUntil}, attempts = attempts + 1
    where id in (
      select id from outbox_messages
      where state = 'pending' and next_attempt_at <= ${now}
        and (${templates === null} or template = any(${templates ?? []}::text[]))
        and (claim_expires_at is null or claim_expires_at <= ${now})
      order by next_attempt_at
      limit ${limit}
      for update skip locked)
    returning id, template, recipient, sealed_body, attempts`;
}

/** Marks a claimed message sent and drops its body. False when the claim was lost meanwhile. */
export async function markMessageSent(sql: Executor, id: string, worker: string, now: Date): Promise<boolean> {
  const rows = await sql`
    update outbox_messages
    set state = 'sent', sealed_body = null, finished_at = ${now}, claimed_by = null, claim_expires_at = null,
        last_error = null
    where id = ${id} and claimed_by = ${worker} and state = 'pending'`;
  return rows.count === 1;
}

export async function scheduleMessageRetry(
  sql: Executor,
  id: string,
  worker: string,
  nextAttemptAt: Date,
  error: string,
): Promise<boolean> {
  const rows = await sql`
    update outbox_messages
    set next_attempt_at = ${nextAttemptAt}, claimed_by = null, claim_expires_at = null, last_error = ${error}
    where id = ${id} and claimed_by = ${worker} and state = 'pending'`;
  return rows.count === 1;
}

/**
 * After a send that was cut off: the next hop may still be finishing the exchange, so the message stays claimed by
 * this worker until its lease ends and is due no earlier than that; no other worker can send it meanwhile.
 */
export async function holdMessageUntilLeaseEnds(
  sql: Executor,
  id: string,
  worker: string,
  nextAttemptAt: Date,
  error: string,
): Promise<boolean> {
  const rows = await sql`
    update outbox_messages
    set next_attempt_at = greatest(${nextAttemptAt}::timestamptz, claim_expires_at), last_error = ${error}
    where id = ${id} and claimed_by = ${worker} and state = 'pending'`;
  return rows.count === 1;
}

/** Gives a message up and drops its body: the secret it carried is useless to anyone from now on. */
export async function markMessageDead(
  sql: Executor,
  id: string,
  worker: string,
  error: string,
  now: Date,
): Promise<boolean> {
  const rows = await sql`
    update outbox_messages
    set state = 'dead', sealed_body = null, finished_at = ${now}, claimed_by = null, claim_expires_at = null,
        last_error = ${error}
    where id = ${id} and claimed_by = ${worker} and state = 'pending'`;
  return rows.count === 1;
}

export interface OutboxCounts {
  pending: number;
  sent: number;
  dead: number;
}

export async function countMessages(sql: Executor): Promise<OutboxCounts> {
  const rows = await sql<{ state: MessageState; count: number }[]>`
    select state, count(*)::int as count from outbox_messages group by state`;
  const counts: OutboxCounts = { pending: 0, sent: 0, dead: 0 };
  for (const row of rows) counts[row.state] = row.count;
  return counts;
}

/** Removes sent and dead messages finished before `before`; their bodies are already gone. */
export async function deleteFinishedMessages(sql: Executor, before: Date): Promise<number> {
  const rows = await sql`delete from outbox_messages where state <> 'pending' and finished_at < ${before}`;
  return rows.count;
}

/** Counting stops here: past it the queue is "at least this deep", so a metrics scrape never scans a runaway table. */
export const OUTBOX_COUNT_CAP = 100_000;

/** Pending and dead messages, each counted up to OUTBOX_COUNT_CAP (pending through the partial index). */
export async function countOutboxDepth(sql: Executor): Promise<{ pending: number; dead: number }> {
  const [row] = await sql<{ pending: number; dead: number }[]>`
    select (select count(*)::int from (select 1 from outbox_messages where state = 'pending'
                                       limit ${OUTBOX_COUNT_CAP}) p) as pending,
           (select count(*)::int from (select 1 from outbox_messages where state = 'dead'
                                       limit ${OUTBOX_COUNT_CAP}) d) as dead`;
  return row ?? { pending: 0, dead: 0 };
}
