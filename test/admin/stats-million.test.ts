// GET /admin/stats over a million audit records: the figures equal what the records themselves say, and the
// statements the endpoint runs read the rollup (migration 0045), never audit_events, so their work follows the number
// of buckets and active people rather than the size of the log. No timing is asserted (speed is for `npm run bench`).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { activeQuery, activeTotalQuery, countsQuery, type StatsRange } from '../../src/audit/stats-store.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

const DAY = 86_400_000;
const RECORDS = 1_000_000;
const PEOPLE = 997;
const start = new Date(Math.floor(Date.now() / DAY) * DAY - 30 * DAY);
const end = new Date(start.getTime() + 30 * DAY);

const t = await startTestApp();
const admin = await makeAdmin(t);
const before = await t.sql<{ n: number }[]>`select count(*)::int as n from audit_events`;

// One statement, as a restore's COPY would load them: a record every 2.592 s over 30 days. Of each ten: five
// sign-ins (four methods in turn), one second step, two failures, one sign-up and one other event.
await t.sql`
  insert into audit_events (chain, seq, occurred_at, event, actor, subject, details, prev_hash, hash)
  select 'seeded', i + 1, ${start}::timestamptz + i * interval '2592 milliseconds',
         case when i % 10 < 6 then 'signin.succeeded' when i % 10 < 8 then 'signin.failed'
              when i % 10 = 8 then 'signup.created' else 'client.updated' end,
         null,
         case when i % 10 = 8 then 'usr_new_' || i else 'usr_' || (i % ${PEOPLE}) end,
         case when i % 10 < 5 then jsonb_build_object('method', (array['password', 'passkey', 'federated', 'saml'])[(i / 10) % 4 + 1])
              when i % 10 = 5 then '{"method": "second_factor"}'::jsonb
              else '{}'::jsonb end,
         'seeded', 'seeded'
  from generate_series(0, ${RECORDS - 1}) as i`;
await t.sql`analyze audit_events`;
await t.sql`analyze audit_stats_hours`;
await t.sql`analyze audit_active_hours`;
await t.sql`analyze audit_active_days`;

type Json = Record<string, unknown>;
const get = async (url: string) => {
  const response = await t.app.inject({ method: 'GET', url, headers: { cookie: admin.cookie } });
  return { status: response.statusCode, json: response.json() as Json };
};

/** The figures computed from the records themselves, per bucket: what the rollup must agree with. */
async function fromRecords(bucket: 'hour' | 'day') {
  const rows = await t.sql<{ start: Date; sign_ins: number; failed: number; sign_ups: number; active: number }[]>`
    select date_trunc(${bucket}::text, occurred_at, 'UTC') as start,
           count(*) filter (where event = 'signin.succeeded' and details->>'method' <> 'second_factor')::int as sign_ins,
           count(*) filter (where event = 'signin.failed')::int as failed,
           count(*) filter (where event = 'signup.created')::int as sign_ups,
           count(distinct subject) filter (where event = 'signin.succeeded')::int as active
    from audit_events
    where occurred_at >= ${start} and occurred_at < ${end} and chain = 'seeded'
    group by 1 order by 1`;
  const methods = await t.sql<{ start: Date; method: string; n: number }[]>`
    select date_trunc(${bucket}::text, occurred_at, 'UTC') as start, details->>'method' as method, count(*)::int as n
    from audit_events
    where occurred_at >= ${start} and occurred_at < ${end} and chain = 'seeded'
      and event = 'signin.succeeded' and details->>'method' <> 'second_factor'
    group by 1, 2`;
  const byMethod = new Map<number, Record<string, number>>();
  for (const m of methods) byMethod.set(m.start.getTime(), { ...byMethod.get(m.start.getTime()), [m.method]: m.n });
  return rows.map((r) => ({ ...r, by_method: byMethod.get(r.start.getTime()) ?? {} }));
}

describe('GET /admin/stats over a million audit records', () => {
  test('the seeded log holds a million records more than before', async () => {
    const [after] = await t.sql<{ n: number }[]>`select count(*)::int as n from audit_events`;
    assert.equal((after?.n ?? 0) - (before[0]?.n ?? 0), RECORDS);
  });

  test('daily figures equal the records: 500 000 sign-ins, 200 000 failures, 100 000 sign-ups, 997 people', async () => {
    const r = await get(`/admin/stats?bucket=day&from=${start.toISOString()}&to=${end.toISOString()}`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.totals, {
      sign_ins: 500_000,
      sign_ins_by_method: { password: 125_000, passkey: 125_000, federated: 125_000, saml: 125_000 },
      failed_sign_ins: 200_000,
      sign_ups: 100_000,
      active_identities: PEOPLE,
    });
    const expected = await fromRecords('day');
    assert.equal(expected.length, 30);
    assert.deepEqual(
      r.json.buckets,
      expected.map((e) => ({
        start: e.start.toISOString(),
        sign_ins: e.sign_ins,
        sign_ins_by_method: e.by_method,
        failed_sign_ins: e.failed,
        sign_ups: e.sign_ups,
        active_identities: e.active,
      })),
    );
  });

  test('hourly figures over the 30 days (720 buckets) equal the records', async () => {
    const r = await get(`/admin/stats?bucket=hour&from=${start.toISOString()}&to=${end.toISOString()}`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const buckets = r.json.buckets as Json[];
    assert.equal(buckets.length, 720);
    const expected = await fromRecords('hour');
    // Compared on sums and on every bucket's sign-ins and active people (the whole objects are 720 lines of diff).
    assert.deepEqual(
      buckets.map((b) => [b.start, b.sign_ins, b.failed_sign_ins, b.sign_ups, b.active_identities]),
      expected.map((e) => [e.start.toISOString(), e.sign_ins, e.failed, e.sign_ups, e.active]),
    );
    assert.deepEqual(
      buckets.map((b) => b.sign_ins_by_method),
      expected.map((e) => e.by_method),
    );
  });

  test('the statements the endpoint runs read the rollup tables and never audit_events', async () => {
    for (const bucket of ['day', 'hour'] as const) {
      const range: StatsRange = { bucket, from: start, to: end };
      for (const query of [countsQuery, activeQuery, activeTotalQuery]) {
        const [row] = await t.sql<{ 'QUERY PLAN': unknown }[]>`explain (format json) ${query(t.sql, range)}`;
        const plan = JSON.stringify(row?.['QUERY PLAN']);
        const relations = [...plan.matchAll(/"Relation Name":"([a-z_]+)"/g)].map((m) => m[1]);
        assert.ok(relations.length > 0, plan);
        assert.ok(
          relations.every((name) => name?.startsWith('audit_stats_') || name?.startsWith('audit_active_')),
          `${query.name} (${bucket}) reads ${relations.join(', ')}`,
        );
      }
    }
  });
});
