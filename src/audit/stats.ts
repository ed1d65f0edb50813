// What GET /admin/stats accepts and answers: the console overview's sign-ins by method, failed sign-ins, sign-ups
// and active identities per UTC hour or day, read from the rollup the audit trigger keeps (migration 0045).

import type { Executor } from '../db/pool.ts';
import type { FieldProblem } from '../http/errors.ts';
import { invalidFields } from '../http/validation-messages.ts';
import { Type } from '../schema/type.ts';
import { parseDateTime } from './date-time.ts';
import { type Bucket, readStats, type StatsRange } from './stats-store.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP: Record<Bucket, number> = { hour: HOUR, day: DAY };
/** The most buckets one answer holds: 31 days of hours, or 366 days. Bounded so a request's work is too. */
export const MAX_BUCKETS: Record<Bucket, number> = { hour: 31 * 24, day: 366 };
/** Without from: the last 24 hours, or the last 30 days. */
const DEFAULT_BUCKETS: Record<Bucket, number> = { hour: 24, day: 30 };

export const StatsQuerySchema = Type.Object(
  {
    from: Type.Optional(Type.String({ maxLength: 40, description: 'RFC 3339 date-time; rounded down to its bucket' })),
    to: Type.Optional(
      Type.String({ maxLength: 40, description: 'RFC 3339 date-time, exclusive; rounded up to a bucket boundary' }),
    ),
    bucket: Type.Optional(Type.String({ maxLength: 10, description: 'hour or day (the default); buckets are UTC' })),
  },
  { additionalProperties: false },
);
export type StatsQuery = Partial<Record<'from' | 'to' | 'bucket', string>>;

const Count = Type.Integer({ minimum: 0 });
const ByMethod = Type.Record(Type.String(), Count, { description: 'Sign-ins per method (password, passkey, ...)' });
const Figures = {
  sign_ins: Count,
  sign_ins_by_method: ByMethod,
  failed_sign_ins: Count,
  sign_ups: Count,
  active_identities: Count,
};
export const StatsSchema = Type.Object(
  {
    bucket: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
    from: Type.String({ format: 'date-time' }),
    to: Type.String({ format: 'date-time' }),
    time_zone: Type.Literal('UTC'),
    methods: Type.Array(Type.String(), { description: 'Every method with a sign-in in the range, sorted' }),
    buckets: Type.Array(Type.Object({ start: Type.String({ format: 'date-time' }), ...Figures })),
    totals: Type.Object(Figures, { description: 'The whole range; active_identities counts each person once' }),
  },
  { additionalProperties: false },
);

const floorTo = (date: Date, step: number) => new Date(Math.floor(date.getTime() / step) * step);
const ceilTo = (date: Date, step: number) => new Date(Math.ceil(date.getTime() / step) * step);

/** Turns the validated query into whole UTC buckets, or throws invalid_request naming every field that is wrong. */
export function parseStatsQuery(query: StatsQuery, now: Date): StatsRange {
  const problems: FieldProblem[] = [];
  const problem = (field: string, text: string) => problems.push({ path: `querystring.${field}`, problem: text });
  const bucket = query.bucket ?? 'day';
  if (bucket !== 'hour' && bucket !== 'day') {
    problem('bucket', 'must be hour or day');
    throw invalidFields(problems);
  }
  const step = STEP[bucket];
  const dates: { from?: Date; to?: Date } = {};
  for (const field of ['from', 'to'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    const date = parseDateTime(value);
    if (date) dates[field] = date;
    else problem(field, 'must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T00:00:00Z');
  }
  if (problems.length > 0) throw invalidFields(problems);

  // Without to: the end of the bucket now is in (at 08:00:00 sharp, the 08:00 hour is the current one).
  const to = dates.to ? ceilTo(dates.to, step) : new Date(floorTo(now, step).getTime() + step);
  const from = dates.from ? floorTo(dates.from, step) : new Date(to.getTime() - DEFAULT_BUCKETS[bucket] * step);
  if (from >= to) problem('to', 'must be later than from');
  else if ((to.getTime() - from.getTime()) / step > MAX_BUCKETS[bucket])
    problem('to', `must be at most ${MAX_BUCKETS[bucket]} ${bucket}s after from`);
  if (problems.length > 0) throw invalidFields(problems);
  return { bucket, from, to };
}

type Figures = {
  sign_ins: number;
  sign_ins_by_method: Record<string, number>;
  failed_sign_ins: number;
  sign_ups: number;
  active_identities: number;
};
const noFigures = (): Figures => ({
  sign_ins: 0,
  sign_ins_by_method: {},
  failed_sign_ins: 0,
  sign_ups: 0,
  active_identities: 0,
});

export async function auditStats(sql: Executor, query: StatsQuery, now: Date) {
  const range = parseStatsQuery(query, now);
  const step = STEP[range.bucket];
  const stored = await readStats(sql, range);
  // Every bucket of the range is in the answer, empty ones too: a chart needs its zeros.
  const buckets = new Map<number, Figures>();
  for (let at = range.from.getTime(); at < range.to.getTime(); at += step) buckets.set(at, noFigures());
  const totals = noFigures();
  const methods = new Set<string>();
  for (const row of stored.counts) {
    const figures = buckets.get(row.bucket.getTime());
    if (!figures) continue;
    for (const target of [figures, totals]) {
      if (row.kind === 'signin') {
        target.sign_ins += row.count;
        target.sign_ins_by_method[row.method] = (target.sign_ins_by_method[row.method] ?? 0) + row.count;
      } else if (row.kind === 'signin_failed') target.failed_sign_ins += row.count;
      else target.sign_ups += row.count;
    }
    if (row.kind === 'signin') methods.add(row.method);
  }
  for (const row of stored.active) {
    const figures = buckets.get(row.bucket.getTime());
    if (figures) figures.active_identities = row.count;
  }
  totals.active_identities = stored.activeTotal;
  return {
    bucket: range.bucket,
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    time_zone: 'UTC' as const,
    methods: [...methods].sort(),
    buckets: [...buckets].map(([at, figures]) => ({ start: new Date(at).toISOString(), ...figures })),
    totals,
  };
}
