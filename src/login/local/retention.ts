// Housekeeping for sign-in state: login transactions are useless once expired (kept a day for support questions),
// and throttle rows that neither lock nor count any more are dropped.
import type { Executor } from '../../db/pool.ts';
import { deleteExpiredLoginTransactions, deleteStaleThrottleRows } from './store.ts';

export const LOGIN_TRANSACTION_RETENTION_SECONDS = 86_400;

export async function purgeLoginRecords(
  sql: Executor,
  now: Date,
): Promise<{ loginTransactions: number; throttleRows: number }> {
  const before = new Date(now.getTime() - LOGIN_TRANSACTION_RETENTION_SECONDS * 1000);
  return {
    loginTransactions: await deleteExpiredLoginTransactions(sql, before),
    throttleRows: await deleteStaleThrottleRows(sql, now),
  };
}
