// The console's read-only administration API: the audit log (filtered, paged), the chains' verification, and the
// status report `gatehouse doctor` prints. Real app, real PostgreSQL; records come from the app's own audit writer.
import assert from 'node:assert/strict';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { readMigrations } from '../../src/db/migrate.ts';
import { redactDatabaseUrl } from '../../src/db/pool.ts';
import { describeField } from '../../src/http/validation-messages.ts';
import { describeKey } from '../../src/oauth/keyring.ts';
import type { StatusReport } from '../../src/status/report.ts';
import { makeCertificate } from '../delivery/smtp-server.ts';
import { makeAccount, signIn, totpCode } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeAdmin, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

const dir = scratchDir();
const certificate = await makeCertificate(dir);
const keyFile = path.join(dir, 'tls-key.pem');
writeFileSync(keyFile, certificate.key);
const database = await createTestDatabase();
const t = await startTestApp({
  sql: database.sql,
  config: makeConfig({
    database: { url: database.url },
    delivery: {
      kind: 'smtp',
      from: 'no-reply@acme.dev',
      smtp: { host: 'smtp.example.com', username: 'mailer', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
    providers: {
      github: { enabled: true, client_id: 'placeholder' },
      ethereum: { enabled: true },
    },
    tls: { mode: 'files', cert_file: certificate.caFile, key_file: keyFile },
  }),
});
const admin = await makeAdmin(t);
const member = await makeIdentity(t.sql, { assurance: 'ial2' });
await t.sql`insert into memberships (organization_id, identity_id, roles)
            values (${t.config.organization.id}, ${member}, ${['member']})`;
const memberCookie = (await makeSession(t, member)).cookie;

type Json = Record<string, unknown>;
const get = async (url: string, cookie = admin.cookie) => {
  const response = await t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  return { status: response.statusCode, json: response.json() as Json, headers: response.headers, body: response.body };
};
const envelope = (r: Awaited<ReturnType<typeof get>>, error: string, description: string, fields?: unknown) =>
  assert.deepEqual(r.json, {
    error,
    error_description: description,
    request_id: r.headers['x-request-id'],
    ...(fields === undefined ? {} : { fields }),
  });
const events = (r: Awaited<ReturnType<typeof get>>) => (r.json.records as Json[]).map((x) => `${x.event} ${x.subject}`);

// Six records a minute apart: five written directly, then a real sign-in.
const start = t.clock.now();
const seed: [string, string | null, string][] = [
  ['application.created', admin.sub, 'app_1'],
  ['client.created', admin.sub, 'cli_1'],
  ['signin.failed', null, 'usr_intruder'],
  ['client.created', admin.sub, 'cli_2'],
  ['signin.failed', null, 'usr_intruder'],
];
for (const [event, actor, subject] of seed) {
  await t.deps.audit.record({ event, actor, subject, clientIp: '192.0.2.7', requestId: 'req-1', details: { n: 1 } });
  t.clock.advance(60);
}
const person = await makeAccount(t.sql, t.secrets, t.config);
const totp = totpCode(person.totpSeed ?? '', t.clock.now());
const signedIn = await signIn(t.app, person.email, { password: person.password, totp });
assert.ok(signedIn.session, 'the person signed in');
const minute = (n: number) => new Date(start.getTime() + n * 60_000).toISOString();

describe('GET /admin/audit', () => {
  test('lists records newest first, each with its time, event, actor, subject, client IP, request id and details', async () => {
    const r = await get('/admin/audit');
    assert.equal(r.status, 200);
    assert.deepEqual(events(r), [
      `signin.succeeded ${person.sub}`,
      'signin.failed usr_intruder',
      'client.created cli_2',
      'signin.failed usr_intruder',
      'client.created cli_1',
      'application.created app_1',
    ]);
    assert.equal(r.json.next_cursor, null);
    const oldest = (r.json.records as Json[]).at(-1);
    assert.deepEqual(oldest, {
      id: oldest?.id,
      occurred_at: start.toISOString(),
      event: 'application.created',
      actor: admin.sub,
      subject: 'app_1',
      client_ip: '192.0.2.7',
      request_id: 'req-1',
      details: { n: 1 },
      chain: oldest?.chain,
      seq: 1,
      // Names as they are now: the actor is a person; app_1 names no registered application, so it has none.
      actor_name: 'Owner',
      subject_name: null,
    });
  });

  test('names a person by their display name beside the id, and an unknown id by nothing', async () => {
    const r = await get('/admin/audit');
    const [newest] = r.json.records as Json[];
    const [row] = await t.sql<{ display_name: string }[]>`select display_name from identities where id = ${person.sub}`;
    assert.deepEqual([newest?.subject, newest?.subject_name], [person.sub, row?.display_name]);
    const intruder = (r.json.records as Json[]).find((x) => x.subject === 'usr_intruder');
    assert.equal(intruder?.subject_name, null);
  });

  test('never shows a password, TOTP code or session token', async () => {
    const r = await get('/admin/audit?event=signin.succeeded');
    assert.deepEqual(events(r), [`signin.succeeded ${person.sub}`]);
    for (const secret of [person.password, totp, signedIn.session.split('=')[1] ?? 'missing', person.totpSeed ?? ''])
      assert.ok(!r.body.includes(secret));
  });

  test('filters by event, actor, subject and a time range, and combines them', async () => {
    assert.deepEqual(events(await get('/admin/audit?event=client.created')), [
      'client.created cli_2',
      'client.created cli_1',
    ]);
    assert.deepEqual(events(await get(`/admin/audit?actor=${admin.sub}&event=application.created`)), [
      'application.created app_1',
    ]);
    assert.deepEqual(events(await get('/admin/audit?subject=usr_intruder')), [
      'signin.failed usr_intruder',
      'signin.failed usr_intruder',
    ]);
    // since is inclusive and until exclusive: minutes 1 and 2 only.
    const range = `since=${encodeURIComponent(minute(1))}&until=${encodeURIComponent(minute(3))}`;
    assert.deepEqual(events(await get(`/admin/audit?${range}`)), [
      'signin.failed usr_intruder',
      'client.created cli_1',
    ]);
    assert.deepEqual(events(await get('/admin/audit?event=totp.enrolled')), []);
  });

  test('pages newest first through next_cursor without repeating a record; the last page has no cursor', async () => {
    const seen: string[] = [];
    let url = '/admin/audit?limit=2';
    const sizes: number[] = [];
    for (;;) {
      const r = await get(url);
      assert.equal(r.status, 200);
      sizes.push((r.json.records as Json[]).length);
      seen.push(...(r.json.records as Json[]).map((x) => String(x.id)));
      if (r.json.next_cursor === null) break;
      url = `/admin/audit?limit=2&cursor=${r.json.next_cursor}`;
    }
    assert.deepEqual(sizes, [2, 2, 2]);
    assert.equal(new Set(seen).size, 6);
    const filtered = await get('/admin/audit?event=client.created&limit=1');
    assert.deepEqual(events(filtered), ['client.created cli_2']);
    const next = await get(`/admin/audit?event=client.created&limit=1&cursor=${filtered.json.next_cursor}`);
    assert.deepEqual(events(next), ['client.created cli_1']);
    assert.equal(next.json.next_cursor, null);
  });

  test('refuses bad parameters with 400 invalid_request naming the field', async () => {
    const cases: [string, string, string][] = [
      ['limit=0', 'querystring.limit', 'Must be a whole number from 1 to 200.'],
      ['limit=201', 'querystring.limit', 'Must be a whole number from 1 to 200.'],
      ['limit=ten', 'querystring.limit', 'Must be a whole number from 1 to 200.'],
      [
        'since=yesterday',
        'querystring.since',
        'Must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T00:00:00Z.',
      ],
      [
        'until=2026-02-30T00:00:00Z',
        'querystring.until',
        'Must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T00:00:00Z.',
      ],
      [
        'since=0000-01-01T00:00:00Z',
        'querystring.since',
        'Must be an RFC 3339 date-time with an offset, e.g. 2026-05-01T00:00:00Z.',
      ],
      ['since=2026-05-02T00:00:00Z&until=2026-05-01T00:00:00Z', 'querystring.until', 'Must be later than since.'],
      ['cursor=abc', 'querystring.cursor', 'Is not a cursor this API returned.'],
      ['event=sign%20in', 'querystring.event', 'Must be an event name such as signin.succeeded.'],
    ];
    for (const [query, field, problem] of cases) {
      const r = await get(`/admin/audit?${query}`);
      assert.equal(r.status, 400, query);
      envelope(r, 'invalid_request', describeField({ path: field, problem }), [{ path: field, problem }]);
    }
    const unknown = await get('/admin/audit?password=x');
    assert.equal(unknown.status, 400);
    envelope(unknown, 'invalid_request', 'Password: this request does not accept this field; remove it.', [
      { path: 'querystring.password', problem: 'This request does not accept this field; remove it.' },
    ]);
    const repeated = await get('/admin/audit?event=a&event=b');
    assert.equal(repeated.status, 400);
    envelope(repeated, 'invalid_request', 'Event: enter a single text value.', [
      { path: 'querystring.event', problem: 'Enter a single text value.' },
    ]);
    // PostgreSQL text cannot hold NUL: the database refuses it, and that is the caller's 400, never a 500.
    const nul = await get('/admin/audit?actor=a%00b');
    assert.equal(nul.status, 400);
    envelope(nul, 'invalid_request', 'A value in the request is out of range or not valid text');
    const long = await get(`/admin/audit?actor=${'a'.repeat(201)}`);
    envelope(long, 'invalid_request', 'Actor: use at most 200 characters.', [
      { path: 'querystring.actor', problem: 'Use at most 200 characters.' },
    ]);
  });
});

describe('GET /admin/audit/verify', () => {
  test('reports every chain verified, then names the record edited in SQL, then verified again once restored', async () => {
    const ok = await get('/admin/audit/verify');
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.json, {
      ok: true,
      chains: 1,
      records: 6,
      checked_at: t.clock.now().toISOString(),
      first_broken: null,
      breaks: [],
      pending_records: 0,
      oldest_pending_at: null,
    });

    const [row] = await t.sql<{ id: string; seq: string; chain: string; details: Json }[]>`
      select id::text, seq::text, chain, details from audit_events where event = 'client.created' order by id limit 1`;
    assert.ok(row);
    await t.sql`update audit_events set details = ${t.sql.json({ n: 2 })} where id = ${row.id}`;
    const broken = await get('/admin/audit/verify');
    const first = {
      chain: row.chain,
      seq: Number(row.seq),
      record_id: row.id,
      reason: 'the record was modified after it was written (HMAC mismatch)',
    };
    assert.deepEqual(broken.json, { ...ok.json, ok: false, first_broken: first, breaks: [first] });

    await t.sql`update audit_events set details = ${t.sql.json(row.details as Record<string, number>)} where id = ${row.id}`;
    assert.equal((await get('/admin/audit/verify')).json.ok, true);
  });

  test('refuses query parameters it does not take', async () => {
    const r = await get('/admin/audit/verify?limit=5');
    assert.equal(r.status, 400);
    envelope(r, 'invalid_request', 'Page size: this request does not accept this field; remove it.', [
      { path: 'querystring.limit', problem: 'This request does not accept this field; remove it.' },
    ]);
  });
});

describe('GET /admin/status', () => {
  test('reports the database, deferred delivery, a placeholder provider, the TLS certificate and the signing key', async () => {
    const r = await get('/admin/status');
    assert.equal(r.status, 200);
    const report = r.json as unknown as StatusReport;
    assert.equal(report.status, 'warn');
    assert.equal(report.checked_at, t.clock.now().toISOString());

    const version = report.database.server_version;
    assert.match(String(version), /^\d+/);
    assert.deepEqual(report.database, {
      status: 'ok',
      checks: [
        { status: 'ok', name: 'database', detail: `${redactDatabaseUrl(database.url)} is reachable` },
        { status: 'ok', name: 'migrations', detail: `all ${readMigrations().length} applied` },
      ],
      reachable: true,
      location: redactDatabaseUrl(database.url),
      server_version: version,
      migrations: { known: readMigrations().length, pending: [] },
    });

    const reason = 'delivery.smtp.host "smtp.example.com" is a placeholder host';
    assert.deepEqual(report.delivery, {
      status: 'warn',
      checks: [
        { status: 'ok', name: 'outbox', detail: '0 pending, 0 sent, 0 dead' },
        { status: 'warn', name: 'delivery', detail: `deferred: ${reason}` },
      ],
      kind: 'smtp',
      state: 'deferred',
      reason,
    });
    assert.ok(!r.body.includes('relay-password-7Qx'), 'the relay password is never shown');

    const providers = report.providers.providers.filter((p) => p.state !== 'off');
    assert.deepEqual(providers, [
      {
        id: 'github',
        kind: 'redirect',
        state: 'deferred',
        status: 'warn',
        detail: 'client_id is a placeholder: set real credentials (gatehouse config providers)',
      },
      { id: 'ethereum', kind: 'web3', state: 'enabled', status: 'ok', detail: 'chain ids 1' },
    ]);
    assert.equal(report.providers.providers.length, 9);

    const { tls } = report;
    assert.equal(tls.mode, 'files');
    assert.equal(tls.status, 'ok');
    assert.equal(tls.certificate?.subject, 'CN=localhost');
    assert.ok(Number(tls.certificate?.days_left) > 300);
    assert.match(String(tls.checks[0]?.detail), /^files: CN=localhost, expires \d{4}-\d{2}-\d{2} \(\d+ days left\)$/);

    const { kid } = await describeKey(createPrivateKey(t.secrets.oidcSigningKey));
    assert.deepEqual(report.signing_keys.keys, [{ kid, created_at: null, retired_at: null, signing: true }]);
  });

  test('reports a key file that does not match the certificate, or is missing, as a failure', async () => {
    const otherKey = path.join(dir, 'other-key.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(otherKey, privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const other = await startTestApp({
      config: makeConfig({ tls: { mode: 'files', cert_file: certificate.caFile, key_file: otherKey } }),
    });
    const otherAdmin = await makeAdmin(other);
    const response = await other.app.inject({
      method: 'GET',
      url: '/admin/status',
      headers: { cookie: otherAdmin.cookie },
    });
    const tls = (response.json() as { tls: { status: string; checks: Json[] } }).tls;
    assert.equal(tls.status, 'fail');
    assert.deepEqual(tls.checks.at(-1), {
      status: 'fail',
      name: 'tls key',
      detail: `${otherKey} is not the certificate's key`,
    });
    other.config.tls.key_file = path.join(dir, 'missing.pem');
    const missing = await other.app.inject({
      method: 'GET',
      url: '/admin/status',
      headers: { cookie: otherAdmin.cookie },
    });
    assert.deepEqual((missing.json() as { tls: { checks: Json[] } }).tls.checks.at(-1), {
      status: 'fail',
      name: 'tls key',
      detail: `cannot read ${path.join(dir, 'missing.pem')} (ENOENT)`,
    });
  });
});

describe('the owner guard on /admin/audit, /admin/audit/verify and /admin/status', () => {
  for (const url of ['/admin/audit?limit=abc', '/admin/audit/verify', '/admin/status']) {
    test(`GET ${url} answers 401 login_required without a session, before validating anything`, async () => {
      const r = await get(url, '');
      assert.equal(r.status, 401);
      envelope(r, 'login_required', 'Sign in first.');
    });
    test(`GET ${url} answers 403 admin_required for a member`, async () => {
      const r = await get(url, memberCookie);
      assert.equal(r.status, 403);
      envelope(r, 'admin_required', 'Only an owner of the organization may do this');
    });
  }
});
