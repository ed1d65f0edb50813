// Housekeeping the worker runs about once an hour: sent and dead messages (bodies already dropped) are kept 30 days
// for support questions ("did the mail go out?"), then deleted. Spent verifications follow the same 30 days, purged
// by the node's housekeeping (src/housekeeping.ts), since verification sits above delivery.
import type { Sql } from '../db/pool.ts';
import { purgeMailbox } from './dev-mailbox.ts';
import { deleteFinishedMessages } from './store.ts';

export const RETENTION_DAYS = 30;

export async function purgeDeliveryRecords(sql: Sql, now: Date): Promise<{ messages: number; kept: number }> {
  const before = new Date(now.getTime() - RETENTION_DAYS * 86_400_000);
  return { messages: await deleteFinishedMessages(sql, before), kept: await purgeMailbox(sql, now) };
}
