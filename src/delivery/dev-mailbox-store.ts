// The only SQL for dev_mailbox_messages (migrations/0013_dev_mailbox.sql).
import type { Executor } from '../db/pool.ts';

export interface KeptMessageRow {
  id: string;
  template: string;
  recipient: string;
  sealed_body: string;
  kept_at: Date;
}

/** Keeps a message once: a re-send of the same outbox id after a crash changes nothing. */
export async function insertKeptMessage(sql: Executor, row: KeptMessageRow): Promise<boolean> {
  const result = await sql`
    insert into dev_mailbox_messages (id, template, recipient, sealed_body, kept_at)
    values (${row.id}, ${row.template}, ${row.recipient}, ${row.sealed_body}, ${row.kept_at})
    on conflict (id) do nothing`;
  return result.count === 1;
}

/** Newest first. */
export async function listKeptMessages(sql: Executor, limit: number): Promise<KeptMessageRow[]> {
  return sql<KeptMessageRow[]>`
    select id, template, recipient, sealed_body, kept_at from dev_mailbox_messages
    order by kept_at desc, id desc limit ${limit}`;
}

export async function deleteKeptMessages(sql: Executor, before: Date): Promise<number> {
  const rows = await sql`delete from dev_mailbox_messages where kept_at < ${before}`;
  return rows.count;
}
