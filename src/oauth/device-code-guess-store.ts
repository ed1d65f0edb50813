// The only SQL for device_code_guesses: failed user-code entries counted per key and fixed window, so every node
// sees the same counts (device-code-throttle.ts).
import type { Executor } from '../db/pool.ts';

/** The failures counted so far in this window for each of `keys` (missing keys have none). */
export async function countGuessFailures(
  sql: Executor,
  keys: string[],
  windowStart: Date,
): Promise<Map<string, number>> {
  const rows = await sql<{ key: string; failures: number }[]>`
    select key, failures from device_code_guesses where key = any(${keys}::text[]) and window_start = ${windowStart}`;
  return new Map(rows.map((r) => [r.key, r.failures]));
}

/** Counts one failure against each key in this window; returns the counts after it. */
export async function addGuessFailure(sql: Executor, keys: string[], windowStart: Date): Promise<Map<string, number>> {
  const rows = await sql<{ key: string; failures: number }[]>`
    insert into device_code_guesses as g (key, window_start, failures)
    select k, ${windowStart}, 1 from unnest(${keys}::text[]) as k
    on conflict (key, window_start) do update set failures = g.failures + 1
    returning key, failures`;
  return new Map(rows.map((r) => [r.key, r.failures]));
}

/** Housekeeping: windows that ended before `before`. */
export async function deleteEndedGuessWindows(sql: Executor, before: Date): Promise<number> {
  return (await sql`delete from device_code_guesses where window_start < ${before}`).count;
}
