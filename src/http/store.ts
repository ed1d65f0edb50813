// The only SQL for request_counters: fixed-window counters shared by every node (DESIGN.md "Stateless nodes").
import type { Executor } from '../db/pool.ts';

/**
 * Counts one request against (bucket, key) in one statement: a window older than `windowSeconds` starts again at
 * one. Returns the count including this request and when the window started.
 */
export async function countRequest(
  sql: Executor,
  bucket: string,
  key: string,
  windowSeconds: number,
  now: Date,
): Promise<{ count: number; windowStart: Date }> {
  const [row] = await sql<{ count: number; window_start: Date }[]>`
    insert into request_counters as c (bucket, key, window_start, count)
    values (${bucket}, ${key}, ${now}, 1)
    on conflict (bucket, key) do update set
      window_start = case when c.window_start <= ${now}::timestamptz - make_interval(secs => ${windowSeconds})
                          then ${now}::timestamptz else c.window_start end,
      count = case when c.window_start <= ${now}::timestamptz - make_interval(secs => ${windowSeconds})
                   then 1 else c.count + 1 end
    returning count, window_start`;
  if (!row) throw new Error('request counter upsert returned no row');
  return { count: row.count, windowStart: row.window_start };
}

/**
 * The counts of (bucket, key) for `keys` in their current windows, without counting anything: for a limit that
 * refuses every request once the failures it counts reached it. Keys without a live window are absent.
 */
export async function readRequestCounts(
  sql: Executor,
  bucket: string,
  keys: string[],
  windowSeconds: number,
  now: Date,
): Promise<Map<string, { count: number; windowStart: Date }>> {
  const rows = await sql<{ key: string; count: number; window_start: Date }[]>`
    select key, count, window_start from request_counters
    where bucket = ${bucket} and key = any(${keys}::text[])
      and window_start > ${now}::timestamptz - make_interval(secs => ${windowSeconds})`;
  return new Map(rows.map((r) => [r.key, { count: r.count, windowStart: r.window_start }]));
}

/** Housekeeping: counters whose window started before `before` no longer limit anything. */
export async function deleteEndedRequestWindows(sql: Executor, before: Date): Promise<number> {
  const rows = await sql`delete from request_counters where window_start < ${before} returning bucket`;
  return rows.length;
}
