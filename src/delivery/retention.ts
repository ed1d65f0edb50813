// Housekeeping the worker runs about once an hour: sent and dead messages (bodies already dropped) and spent
// verifications are kept 30 days for support questions ("did the mail go out?"), then deleted.
import type { Sql } from '../db/pool.ts';
import { purgeSpentVerifications } from '../verification/verification.ts';
import { deleteFinishedMessages } from './store.ts';

export const RETENTION_DAYS = 30;

export async function purgeDeliveryRecords(sql: Sql, now: Date): Promise<{ messages: number; verifications: number }> {
  const before = new Date(now.getTime() - RETENTION_DAYS * 86_400_000);
  return {
    messages: await deleteFinishedMessages(sql, before),
    verifications: await purgeSpentVerifications(sql, now, RETENTION_DAYS),
  };
}
