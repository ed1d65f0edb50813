// Housekeeping for sessions: an ended session (revoked or expired) is kept 30 days, so "which sessions did this
// account have last week" can still be answered next to the audit records, then deleted.
import type { Executor } from '../db/pool.ts';
import { deleteEndedSessions } from './store.ts';

export const ENDED_SESSION_RETENTION_DAYS = 30;

export async function purgeEndedSessions(sql: Executor, now: Date): Promise<number> {
  return await deleteEndedSessions(sql, new Date(now.getTime() - ENDED_SESSION_RETENTION_DAYS * 86_400_000));
}
