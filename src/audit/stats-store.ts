// The only SQL for the overview's rollup tables (migration 0045): audit_stats_hours and audit_active_hours/_days. A
// trigger on audit_events fills them in the append's own statement, so this file only reads them.
import type { Executor } from '../db/pool.ts';

export type Bucket = 'hour' | 'day';

export interface StatsRange {
  bucket: Bucket;
  /** Inclusive, on a bucket boundary (UTC). */
  from: Date;
  /** Exclusive, on a bucket boundary (UTC). */
  to: Date;
}

export interface CountRow {
  bucket: Date;
  kind: 'signin' | 'signin_failed' | 'signup';
  /** The sign-in method for `signin`; '' otherwise. */
  method: string;
  count: number;
}

/**
 * Counts per bucket, kind and method, summed over the chains. Exported unexecuted as well, so a test can EXPLAIN the
 * very statement the endpoint runs.
 */
export function countsQuery(sql: Executor, range: StatsRange) {
  return sql<{ bucket: Date; kind: CountRow['kind']; method: string; count: string }[]>`
    select date_trunc(${range.bucket}::text, hour, 'UTC') as bucket, kind, method, sum(count)::text as count
    from audit_stats_hours
    where hour >= ${range.from} and hour < ${range.to}
    group by 1, 2, 3`;
}

/** Distinct people who signed in, per bucket; hourly buckets read the hourly table, daily ones the daily table. */
export function activeQuery(sql: Executor, range: StatsRange) {
  const [table, column] = range.bucket === 'hour' ? ['audit_active_hours', 'hour'] : ['audit_active_days', 'day'];
  return sql<{ bucket: Date; count: string }[]>`
    select ${sql(column)} as bucket, count(*)::text as count
    from ${sql(table)}
    where ${sql(column)} >= ${range.from} and ${sql(column)} < ${range.to}
    group by 1`;
}

/** Distinct people who signed in anywhere in the range (not the sum of the buckets: one person counts once). */
export function activeTotalQuery(sql: Executor, range: StatsRange) {
  const [table, column] = range.bucket === 'hour' ? ['audit_active_hours', 'hour'] : ['audit_active_days', 'day'];
  return sql<{ count: string }[]>`
    select count(distinct identity)::text as count
    from ${sql(table)}
    where ${sql(column)} >= ${range.from} and ${sql(column)} < ${range.to}`;
}

export async function readStats(sql: Executor, range: StatsRange) {
  const [counts, active, [total]] = await Promise.all([
    countsQuery(sql, range),
    activeQuery(sql, range),
    activeTotalQuery(sql, range),
  ]);
  return {
    counts: counts.map((r): CountRow => ({ bucket: r.bucket, kind: r.kind, method: r.method, count: Number(r.count) })),
    active: active.map((r) => ({ bucket: r.bucket, count: Number(r.count) })),
    activeTotal: Number(total?.count ?? 0),
  };
}
