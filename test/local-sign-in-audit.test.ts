// Cross-module: the local sign-in flows leave a verifiable audit chain that names tampering, and no secret of those
// flows reaches an audit record or a log line (SPEC.md Authentication 12, DESIGN.md "Security invariants").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyAuditChains } from '../src/audit/verify.ts';
import { ensureBootstrap } from '../src/identity/bootstrap.ts';
import { issueEnrollmentLink } from '../src/login/local/enrollment-link.ts';
import { cookieFrom, JSON_HEADERS, signIn, totpCode } from './helpers/accounts.ts';
import { startTestApp } from './helpers/app.ts';
import { runCli, writeCliConfig } from './helpers/cli.ts';
import { createTestDatabase } from './helpers/database.ts';

describe('audit chain and secrets after the local sign-in flows', async () => {
  const db = await createTestDatabase();
  const t = await startTestApp({ sql: db.sql });
  const secrets: string[] = [];
  const keep = (value: string) => {
    assert.ok(value.length >= 6, 'a secret worth scanning for');
    secrets.push(value.includes('=') ? (value.split('=')[1] as string) : value);
    return value;
  };

  // A config file whose secrets directory holds the audit key the app used, for the real CLI.
  const configFile = writeCliConfig({ auditKey: t.secrets.audit });
  const cli = async () => {
    const result = await runCli(['audit', 'verify', '--config', configFile, '--database-url', db.url]);
    return { code: result.code, stdout: result.stdout + result.stderr };
  };

  const post = async (url: string, payload: Record<string, unknown>, cookie = '') =>
    await t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) }, payload });

  it('runs enrollment, sign-in with TOTP and with a recovery code, a failure and a logout', async () => {
    const owner = await ensureBootstrap(t.sql, {
      organizationId: 'acme',
      organizationName: 'Acme',
      ownerSubject: 'owner@acme.test',
    });
    const link = await issueEnrollmentLink(t.sql, owner.ownerId, t.config.server.issuer, t.clock.now());
    const token = keep(new URLSearchParams(new URL(link.url).hash.slice(1)).get('token') as string);
    const password = keep('juniper lattice window 83');
    const enrolled = await post('/auth/enroll', { token, password });
    const limited = keep(cookieFrom(enrolled, 'gatehouse_session'));
    const { secret } = (await post('/account/totp/start', {}, limited)).json() as { secret: string };
    keep(secret);
    const enrollCode = keep(totpCode(secret, t.clock.now()));
    const done = await post('/account/totp/complete', { code: enrollCode }, limited);
    const codes = (done.json() as { recovery_codes: string[] }).recovery_codes.map(keep);
    keep(cookieFrom(done, 'gatehouse_session'));

    t.clock.advance(30);
    const code = keep(totpCode(secret, t.clock.now()));
    const ok = await signIn(t.app, 'owner@acme.test', { password, totp: code });
    assert.equal(ok.response.statusCode, 200);
    keep(ok.session);
    keep(ok.started.cookie);
    const rec = await signIn(t.app, 'owner@acme.test', { password, recovery_code: codes[0] as string });
    assert.equal(rec.response.statusCode, 200);
    keep(rec.session);
    const wrong = await signIn(t.app, 'owner@acme.test', { password: keep('wrong guess of it 1'), totp: code });
    assert.equal(wrong.response.statusCode, 401);
    assert.equal((await post('/auth/logout', {}, rec.session)).statusCode, 204);
  });

  it('records every security event with client IP and request id', async () => {
    const rows = await t.sql<{ event: string; client_ip: string | null; request_id: string | null }[]>`
      select event, client_ip, request_id from audit_events order by id`;
    const events = rows.map((r) => r.event);
    for (const name of [
      'method.attached',
      'enrollment.password_set',
      'totp.enrollment_started',
      'totp.enrolled',
      'signin.succeeded',
      'signin.failed',
      'session.ended',
    ])
      assert.ok(events.includes(name), `${name} in ${events.join(', ')}`);
    for (const row of rows) {
      assert.ok(row.client_ip, `${row.event} has a client IP`);
      assert.ok(row.request_id, `${row.event} has a request id`);
    }
  });

  it('records a failed sign-in with an unknown actor and the account tried as its subject', async () => {
    const [owner] = await t.sql<{ id: string }[]>`
      select identity_id as id from emails where normalized = 'owner@acme.test'`;
    const failed = await t.sql`select actor, subject from audit_events where event = 'signin.failed' order by id`;
    assert.deepEqual(
      failed.map((r) => ({ ...r })),
      [{ actor: null, subject: owner?.id }],
    );
    // A success is the person's own doing: actor and subject are both the person.
    const [succeeded] = await t.sql`select actor, subject from audit_events where event = 'signin.succeeded' limit 1`;
    assert.deepEqual({ ...succeeded }, { actor: owner?.id, subject: owner?.id });
  });

  it('puts no secret in any audit record or log line', async () => {
    const audit = JSON.stringify(await t.sql`select * from audit_events`);
    const logs = t.logs.text;
    assert.ok(logs.includes('/auth/mfa/verify'), 'the flows were logged');
    for (const secret of secrets) {
      assert.ok(!audit.includes(secret), `audit records contain a secret (${secret.slice(0, 3)}…)`);
      assert.ok(!logs.includes(secret), `logs contain a secret (${secret.slice(0, 3)}…)`);
    }
  });

  it('verifies the chain, with verifyAuditChains and with `gatehouse audit verify`', async () => {
    const report = await verifyAuditChains(t.sql, t.secrets.audit);
    assert.deepEqual(report.breaks, []);
    assert.ok(report.records >= 8);
    const result = await cli();
    assert.equal(result.code, 0, result.stdout);
    assert.match(result.stdout, /^OK: \d+ records in 1 chain verified/m);
    assert.doesNotMatch(result.stdout, /await chaining/);
  });

  it('says how many records of committed changes wait to join a chain, without failing for them', async () => {
    await t.sql.begin((tx) => t.deps.audit.recordIn(tx, { event: 'client.deleted', subject: 'cli_gone' }));
    const waiting = await cli();
    assert.equal(waiting.code, 0, waiting.stdout);
    assert.match(
      waiting.stdout,
      /^1 record of committed changes awaits chaining \(oldest from \d{4}-\d\d-\d\dT[^)]+\)/m,
    );
    assert.equal(await t.deps.audit.chainPending(), 1);
    assert.doesNotMatch((await cli()).stdout, /await chaining/);
  });

  it('names a record whose details were edited in SQL', async () => {
    const [row] = await t.sql<{ id: string; seq: string; details: object }[]>`
      select id::text, seq::text, details from audit_events where event = 'signin.failed' limit 1`;
    assert.ok(row);
    await t.sql`update audit_events set details = ${t.sql.json({ reason: 'nothing happened' })} where id = ${row.id}`;
    const result = await cli();
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, new RegExp(`at record ${row.seq} \\(row id ${row.id}\\): the record was modified`));
    await t.sql`update audit_events set details = ${t.sql.json(row.details as Record<string, string>)} where id = ${row.id}`;
    assert.equal((await cli()).code, 0, 'restoring the row restores the chain');
  });

  it('notices a deleted tail through the chain head', async () => {
    const [tail] = await t.sql`select * from audit_events order by seq desc limit 1`;
    assert.ok(tail);
    await t.sql`delete from audit_events where id = ${tail.id}`;
    const report = await verifyAuditChains(t.sql, t.secrets.audit);
    assert.equal(report.breaks.length, 1);
    assert.equal(report.breaks[0]?.id, null);
    assert.match(report.breaks[0]?.problem ?? '', /records were deleted/);
    await t.sql`insert into audit_events ${t.sql(tail)}`;
    assert.deepEqual((await verifyAuditChains(t.sql, t.secrets.audit)).breaks, []);
  });

  it('names the place of a deleted middle record', async () => {
    const [middle] = await t.sql<{ id: string; seq: string }[]>`
      select id::text, seq::text from audit_events order by seq limit 1 offset 3`;
    assert.ok(middle);
    await t.sql`delete from audit_events where id = ${middle.id}`;
    const result = await cli();
    assert.equal(result.code, 1);
    assert.match(result.stdout, new RegExp(`expected record ${middle.seq} next, found ${Number(middle.seq) + 1}`));
    assert.match(result.stdout, /^FAILED:/m);
  });
});
