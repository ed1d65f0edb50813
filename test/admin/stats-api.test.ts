// GET /admin/stats: the console overview's figures per UTC hour or day, from audit records the app's own writer
// appends (the migration 0045 trigger keeps the rollup it reads). Real app, real PostgreSQL, a hand-moved clock.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeField } from '../../src/http/validation-messages.ts';
import { makeAccount, signIn, totpCode } from '../helpers/accounts.ts';
import { startTestApp, TestClock } from '../helpers/app.ts';
import { makeAdmin, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

const DAY = 86_400_000;
const day0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
const at = (day: number, hh: number, mm: number) => new Date(day0 + day * DAY + (hh * 60 + mm) * 60_000);
const iso = (day: number, hh = 0, mm = 0) => at(day, hh, mm).toISOString();

const clock = new TestClock(day0);
const t = await startTestApp({ clock });

type Json = Record<string, unknown>;
const get = async (url: string, cookie = admin.cookie) => {
  const response = await t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  return { status: response.statusCode, json: response.json() as Json, headers: response.headers };
};
const envelope = (r: Awaited<ReturnType<typeof get>>, error: string, description: string, fields?: unknown) =>
  assert.deepEqual(r.json, {
    error,
    error_description: description,
    request_id: r.headers['x-request-id'],
    ...(fields === undefined ? {} : { fields }),
  });

// [day, hour, minute, event, subject, details]
const seed: [number, number, number, string, string | null, Record<string, string>][] = [
  [0, 10, 5, 'signin.succeeded', 'usr_a', { method: 'password' }],
  [0, 10, 20, 'signin.succeeded', 'usr_a', { method: 'passkey' }],
  [0, 10, 40, 'signin.succeeded', 'usr_b', { method: 'password' }],
  // The second step of usr_b's sign-in: the same sign-in, not another one.
  [0, 10, 50, 'signin.succeeded', 'usr_b', { method: 'second_factor' }],
  [0, 11, 10, 'signin.failed', 'usr_c', { reason: 'credentials' }],
  [0, 11, 15, 'signup.created', 'usr_d', {}],
  [0, 11, 30, 'client.created', 'cli_1', {}],
  [1, 9, 0, 'signin.succeeded', 'usr_a', { method: 'federated' }],
  [1, 9, 30, 'signin.failed', null, { reason: 'login_transaction' }],
  [1, 9, 40, 'signin.failed', 'usr_a', { method: 'passkey', reason: 'credentials' }],
  [1, 13, 0, 'signin.succeeded', 'usr_e', {}],
];
for (const [day, hh, mm, event, subject, details] of seed) {
  clock.advance((at(day, hh, mm).getTime() - clock.now().getTime()) / 1000);
  await t.deps.audit.record({ event, actor: subject, subject, details });
}
// A real password sign-in with TOTP on day 2, through the whole sign-in path.
clock.advance((at(2, 10, 0).getTime() - clock.now().getTime()) / 1000);
const person = await makeAccount(t.sql, t.secrets, t.config);
const signedIn = await signIn(t.app, person.email, {
  password: person.password,
  totp: totpCode(person.totpSeed ?? '', clock.now()),
});
assert.ok(signedIn.session, 'the person signed in');
clock.advance((at(3, 8, 0).getTime() - clock.now().getTime()) / 1000);
// Sessions opened now, on day 3: the clock moved past the lifetime of any opened earlier.
const admin = await makeAdmin(t);
const member = await makeIdentity(t.sql, { assurance: 'ial2' });
await t.sql`insert into memberships (organization_id, identity_id, roles)
            values (${t.config.organization.id}, ${member}, ${['member']})`;
const memberCookie = (await makeSession(t, member)).cookie;

const empty = { sign_ins: 0, sign_ins_by_method: {}, failed_sign_ins: 0, sign_ups: 0, active_identities: 0 };

describe('GET /admin/stats', () => {
  test('counts sign-ins by method, failures, sign-ups and active identities per UTC day, zeros included', async () => {
    const r = await get(`/admin/stats?bucket=day&from=${iso(0)}&to=${iso(4)}`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json, {
      bucket: 'day',
      from: iso(0),
      to: iso(4),
      time_zone: 'UTC',
      methods: ['federated', 'other', 'passkey', 'password'],
      buckets: [
        {
          start: iso(0),
          sign_ins: 3,
          sign_ins_by_method: { password: 2, passkey: 1 },
          failed_sign_ins: 1,
          sign_ups: 1,
          active_identities: 2,
        },
        {
          start: iso(1),
          sign_ins: 2,
          sign_ins_by_method: { federated: 1, other: 1 },
          failed_sign_ins: 2,
          sign_ups: 0,
          active_identities: 2,
        },
        {
          start: iso(2),
          sign_ins: 1,
          sign_ins_by_method: { password: 1 },
          failed_sign_ins: 0,
          sign_ups: 0,
          active_identities: 1,
        },
        { start: iso(3), ...empty },
      ],
      // usr_a signed in on two days and counts once.
      totals: {
        sign_ins: 6,
        sign_ins_by_method: { password: 3, passkey: 1, federated: 1, other: 1 },
        failed_sign_ins: 3,
        sign_ups: 1,
        active_identities: 4,
      },
    });
  });

  test('counts per UTC hour, rounding from down and to up to whole hours', async () => {
    const r = await get(`/admin/stats?bucket=hour&from=${iso(0, 10, 30)}&to=${iso(0, 11, 1)}`);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.from, iso(0, 10));
    assert.equal(r.json.to, iso(0, 12));
    assert.deepEqual(r.json.buckets, [
      {
        start: iso(0, 10),
        sign_ins: 3,
        sign_ins_by_method: { password: 2, passkey: 1 },
        failed_sign_ins: 0,
        sign_ups: 0,
        active_identities: 2,
      },
      { start: iso(0, 11), ...empty, failed_sign_ins: 1, sign_ups: 1 },
    ]);
  });

  test('an offset in from and to names the same instants as UTC', async () => {
    const r = await get(`/admin/stats?bucket=hour&from=2026-01-01T10:00:00%2B02:00&to=2026-01-01T12:00:00%2B02:00`);
    assert.equal(r.status, 200);
    assert.deepEqual([r.json.from, r.json.to], ['2026-01-01T08:00:00.000Z', '2026-01-01T10:00:00.000Z']);
    assert.deepEqual(
      (r.json.buckets as Json[]).map((b) => b.start),
      ['2026-01-01T08:00:00.000Z', '2026-01-01T09:00:00.000Z'],
    );
  });

  test('without a range, answers the 30 days up to the end of today, or 24 hours up to the end of this hour', async () => {
    const days = await get('/admin/stats');
    assert.equal(days.status, 200);
    assert.deepEqual([days.json.bucket, days.json.from, days.json.to], ['day', iso(-26), iso(4)]);
    assert.equal((days.json.buckets as Json[]).length, 30);
    assert.equal((days.json.totals as Json).sign_ins, 6);
    const hours = await get('/admin/stats?bucket=hour');
    assert.deepEqual([hours.json.from, hours.json.to], [iso(2, 9), iso(3, 9)]);
    assert.deepEqual(
      (hours.json.buckets as Json[]).find((b) => b.start === iso(2, 10)),
      {
        start: iso(2, 10),
        ...empty,
        sign_ins: 1,
        sign_ins_by_method: { password: 1 },
        active_identities: 1,
      },
    );
  });

  test('refuses bad parameters with 400 invalid_request naming the field', async () => {
    const dateProblem = 'Must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T00:00:00Z.';
    const cases: [string, string, string][] = [
      ['bucket=week', 'querystring.bucket', 'Must be hour or day.'],
      ['from=yesterday', 'querystring.from', dateProblem],
      ['to=2026-02-30T00:00:00Z', 'querystring.to', dateProblem],
      ['from=2026-05-01T00:00:00', 'querystring.from', dateProblem],
      ['from=2026-05-02T00:00:00Z&to=2026-05-01T00:00:00Z', 'querystring.to', 'Must be later than from.'],
      ['from=2026-05-01T00:00:00Z&to=2026-05-01T00:00:00Z', 'querystring.to', 'Must be later than from.'],
      [
        'bucket=hour&from=2026-05-01T00:00:00Z&to=2026-06-01T01:00:00Z',
        'querystring.to',
        'Must be at most 744 hours after from.',
      ],
      ['from=2025-01-01T00:00:00Z&to=2026-01-03T00:00:00Z', 'querystring.to', 'Must be at most 366 days after from.'],
    ];
    for (const [query, field, problem] of cases) {
      const r = await get(`/admin/stats?${query}`);
      assert.equal(r.status, 400, query);
      envelope(r, 'invalid_request', describeField({ path: field, problem }), [{ path: field, problem }]);
    }
    // The longest ranges allowed answer.
    assert.equal((await get('/admin/stats?bucket=hour&from=2026-05-01T00:00:00Z&to=2026-06-01T00:00:00Z')).status, 200);
    assert.equal((await get('/admin/stats?from=2025-01-01T00:00:00Z&to=2026-01-02T00:00:00Z')).status, 200);
    const unknown = await get('/admin/stats?days=7');
    assert.equal(unknown.status, 400);
    envelope(unknown, 'invalid_request', 'Days: this request does not accept this field; remove it.', [
      { path: 'querystring.days', problem: 'This request does not accept this field; remove it.' },
    ]);
    const repeated = await get('/admin/stats?bucket=day&bucket=hour');
    assert.equal(repeated.status, 400);
    envelope(repeated, 'invalid_request', 'Bucket: enter a single text value.', [
      { path: 'querystring.bucket', problem: 'Enter a single text value.' },
    ]);
  });

  test('answers 401 login_required without a session, before validating anything', async () => {
    const r = await get('/admin/stats?bucket=week', '');
    assert.equal(r.status, 401);
    envelope(r, 'login_required', 'Sign in first.');
  });

  test('answers 403 admin_required for a member', async () => {
    const r = await get('/admin/stats', memberCookie);
    assert.equal(r.status, 403);
    envelope(r, 'admin_required', 'Only an owner of the organization may do this');
  });
});
