// Per-key request limits over a fixed window, counted in PostgreSQL so every node enforces one limit. Over the
// limit: 429 rate_limited with Retry-After until the window ends.
import type { Executor } from '../db/pool.ts';
import { RateLimited } from './errors.ts';
import { countRequest } from './store.ts';

export interface WindowLimit {
  /** Requests admitted per window; 0 admits everything (the limit is off). */
  limit: number;
  windowSeconds: number;
}

/** Windows an hour old have ended for every limit we keep (the longest is a minute); housekeeping deletes them. */
export const LONGEST_WINDOW_SECONDS = 3600;

export async function enforceLimit(
  sql: Executor,
  bucket: string,
  key: string,
  rule: WindowLimit,
  now: Date,
  description: string,
): Promise<void> {
  if (rule.limit === 0) return;
  const { count, windowStart } = await countRequest(sql, bucket, key, rule.windowSeconds, now);
  if (count <= rule.limit) return;
  const endsIn = (windowStart.getTime() + rule.windowSeconds * 1000 - now.getTime()) / 1000;
  throw new RateLimited(endsIn, description);
}
