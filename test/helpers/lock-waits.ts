// For race tests that hold one side open in a transaction: waits until the request started meanwhile is blocked on
// one of its locks.
import type { Sql } from '../../src/db/pool.ts';

/**
 * Resolves once `statements` statements (one unless told) in this test's database wait on a lock, or once `request`
 * has settled without waiting (then the test's assertions fail instead of the test hanging).
 */
export async function untilBlocked(sql: Sql, request: Promise<unknown>, statements = 1): Promise<void> {
  let answered = false;
  void request.finally(() => {
    answered = true;
  });
  for (;;) {
    const [row] = await sql`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    if ((row?.n ?? 0) >= statements || answered) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
