import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';
import { createPool } from '../../src/db/pool.ts';
import { createSmtpRelayTransport } from '../../src/delivery/smtp-relay.ts';
import { countMessages } from '../../src/delivery/store.ts';
import { createDeliveryWorker, type WorkerOptions } from '../../src/delivery/worker.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig, scratchDir, smtpPasswordFile } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger, makeOwner, outboxRow, signupLike } from './fixtures.ts';
import { makeCertificate, TestSmtpServer } from './smtp-server.ts';

const credentials = { username: 'mailer', password: 'relay-password-7Qx' };
const certificate = await makeCertificate(scratchDir());
const database = await createTestDatabase();
const { sql } = database;
const identityId = await makeOwner(sql);
const secrets = testSecrets();

function relayConfig(port: number, password = credentials.password, security: 'starttls' | 'tls' = 'starttls') {
  return makeConfig({
    organization: { name: 'Acme Robotics' },
    delivery: {
      kind: 'smtp',
      from: 'Acme Robotics <no-reply@acme.dev>',
      smtp: {
        host: 'localhost',
        port,
        security,
        username: credentials.username,
        password_file: smtpPasswordFile(password),
        ca_file: certificate.caFile,
      },
    },
  });
}

function setup(port: number, options: { password?: string; maxAttempts?: number; security?: 'starttls' | 'tls' } = {}) {
  const config = relayConfig(port, options.password, options.security);
  const clock = new TestClock(Date.parse('2026-03-01T10:00:00Z'));
  const { logs, log } = captureLogger();
  const workerOptions = (overrides: Partial<WorkerOptions> = {}): WorkerOptions => ({
    sql,
    transport: createSmtpRelayTransport(config.delivery.smtp),
    deliveryKey: secrets.delivery,
    from: config.delivery.from,
    clock: clock.now,
    log,
    random: () => 0,
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    ...overrides,
  });
  const context = { config, deliveryKey: secrets.delivery, clock, identityId };
  return {
    config,
    clock,
    logs,
    context,
    worker: (o?: Partial<WorkerOptions>) => createDeliveryWorker(workerOptions(o)),
  };
}

describe('outbox delivered by an authenticated SMTP relay (STARTTLS)', () => {
  const server = new TestSmtpServer({ certificate, credentials });
  after(() => server.stop());

  test('sends the verification message over STARTTLS with AUTH and then forgets its body', async () => {
    await server.start();
    const { context, worker, logs } = setup(server.port);
    const issued = await signupLike(sql, context, 'alice@mail.acme.dev');
    const pending = await outboxRow(sql, issued.messageId);
    assert.equal(pending.state, 'pending');
    assert.ok(pending.sealed_body && !pending.sealed_body.includes(issued.secret), 'the stored body is sealed');

    assert.deepEqual(await worker().runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    const [message] = server.received.slice(-1);
    assert.ok(message);
    assert.deepEqual(message.to, ['alice@mail.acme.dev']);
    assert.equal(message.from, 'no-reply@acme.dev');
    assert.equal(message.secure, true);
    assert.equal(message.user, 'mailer');
    assert.match(message.raw, /Subject: Confirm your email address for Acme Robotics/);
    assert.ok(message.raw.includes(issued.secret), 'the secret is in the body');
    assert.ok(!/^Subject:.*$/m.exec(message.raw)?.[0].includes(issued.secret), 'never in the subject');
    assert.match(message.raw, new RegExp(`Message-ID: <${issued.messageId}@gatehouse>`, 'i'));

    const sent = await outboxRow(sql, issued.messageId);
    assert.deepEqual({ ...sent }, { state: 'sent', attempts: 1, sealed_body: null, last_error: null });
    assert.ok(!logs.text.includes(issued.secret));
    assert.ok(!logs.text.includes(credentials.password));
    assert.ok(!logs.text.includes('Confirm your email'));
  });

  test('a message queued while the relay is down is delivered once it comes back', async () => {
    const { context, worker, clock } = setup(server.port);
    await server.stop();
    const before = server.received.length;
    const issued = await signupLike(sql, context, 'bob@mail.acme.dev');
    const w = worker();

    assert.deepEqual(await w.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    const waiting = await outboxRow(sql, issued.messageId);
    assert.equal(waiting.state, 'pending');
    assert.match(waiting.last_error ?? '', /ECONNREFUSED|ESOCKET|ECONNECTION/);
    clock.advance(29);
    assert.equal((await w.runOnce()).claimed, 0, 'not due before the back-off ends');

    await server.start();
    clock.advance(1);
    assert.deepEqual(await w.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.equal(server.received.length, before + 1);
    assert.deepEqual(server.received.at(-1)?.to, ['bob@mail.acme.dev']);
    assert.equal((await outboxRow(sql, issued.messageId)).attempts, 2);
  });

  test('a message claimed by a worker that died is sent by another once the lease expires', async () => {
    const { context, worker, clock } = setup(server.port);
    const issued = await signupLike(sql, context, 'carol@mail.acme.dev');
    // The dead worker claimed it and never came back (see crash.test.ts for a real SIGKILLed process).
    const { claimDueMessages } = await import('../../src/delivery/store.ts');
    const lease = new Date(clock.now().getTime() + 300_000);
    assert.equal((await claimDueMessages(sql, 'worker-that-died', 10, lease, clock.now())).length, 1);

    const survivor = worker();
    assert.equal((await survivor.runOnce()).claimed, 0, 'a live lease is respected');
    clock.advance(300);
    assert.deepEqual(await survivor.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.deepEqual(server.received.at(-1)?.to, ['carol@mail.acme.dev']);
    assert.equal((await outboxRow(sql, issued.messageId)).state, 'sent');
  });

  test('two workers on one database deliver each of many messages exactly once', async () => {
    const { context, worker } = setup(server.port);
    const before = server.received.length;
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) ids.add((await signupLike(sql, context, `user${i}@mail.acme.dev`)).messageId);
    const drain = async (w: ReturnType<typeof worker>) => {
      let total = 0;
      for (let round = await w.runOnce(); round.claimed > 0; round = await w.runOnce()) total += round.sent;
      return total;
    };
    // The second worker has its own pool, as a second node would.
    const otherNode = createPool(database.url, { max: 2, connectTimeoutSeconds: 5 });
    after(() => otherNode.end());
    const [a, b] = await Promise.all([
      drain(worker({ batchSize: 3 })),
      drain(worker({ batchSize: 3, sql: otherNode })),
    ]);
    assert.equal(a + b, 30);
    const got = server.received.slice(before).map((m) => /Message-ID: <([^@]+)@gatehouse>/i.exec(m.raw)?.[1]);
    assert.equal(got.length, 30);
    assert.deepEqual(new Set(got), ids);
  });
});

describe('SMTP relay failures', () => {
  // Each test starts with an empty queue: a message one test leaves pending must not reach the next one's relay.
  afterEach(() => sql`delete from outbox_messages where state = 'pending'`);

  test('a relay that refuses the message with 550 makes it dead at once, body dropped', async () => {
    const refusing = await new TestSmtpServer({ certificate, credentials, rejectWith: 550 }).start();
    after(() => refusing.stop());
    const { context, worker, logs } = setup(refusing.port);
    const issued = await signupLike(sql, context, 'dave@mail.acme.dev');
    assert.deepEqual(await worker().runOnce(), { claimed: 1, sent: 0, retried: 0, dead: 1 });
    const row = await outboxRow(sql, issued.messageId);
    assert.equal(row.state, 'dead');
    assert.equal(row.sealed_body, null);
    assert.match(row.last_error ?? '', /^SMTP 550: /);
    assert.match(logs.text, /outbox message given up/);
  });

  test('a relay that does not offer STARTTLS gets nothing: no plaintext fallback', async () => {
    const plaintext = await new TestSmtpServer({ certificate, credentials, noStartTls: true }).start();
    after(() => plaintext.stop());
    const { context, worker } = setup(plaintext.port);
    const issued = await signupLike(sql, context, 'hank@mail.acme.dev');
    assert.deepEqual(await worker().runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    assert.match((await outboxRow(sql, issued.messageId)).last_error ?? '', /STARTTLS/);
    assert.equal(plaintext.received.length, 0);
  });

  test('security = "tls" speaks TLS from the first byte (implicit TLS) with AUTH, verified against ca_file', async () => {
    const implicit = await new TestSmtpServer({ certificate, credentials, implicitTls: true }).start();
    after(() => implicit.stop());
    const { context, worker } = setup(implicit.port, { security: 'tls' });
    const issued = await signupLike(sql, context, 'ivy@mail.acme.dev');
    assert.deepEqual(await worker().runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    const [message] = implicit.received;
    assert.deepEqual(message?.to, ['ivy@mail.acme.dev']);
    assert.equal(message?.secure, true);
    assert.equal(message?.user, 'mailer');
    assert.ok(message?.raw.includes(issued.secret));
    assert.equal((await outboxRow(sql, issued.messageId)).state, 'sent');

    // The same relay is unusable with starttls (it never greets in plaintext), so "tls" really is implicit TLS.
    const starttls = setup(implicit.port);
    const other = await signupLike(sql, starttls.context, 'jay@mail.acme.dev');
    assert.deepEqual(await starttls.worker({ sendTimeoutSeconds: 0.2 }).runOnce(), {
      claimed: 1,
      sent: 0,
      retried: 1,
      dead: 0,
    });
    assert.equal((await outboxRow(sql, other.messageId)).state, 'pending');
    assert.equal(implicit.received.length, 1);
  });

  test('wrong relay credentials are retried until the last attempt, then dead; the password is never logged', async () => {
    const server = await new TestSmtpServer({ certificate, credentials }).start();
    after(() => server.stop());
    const { context, worker, clock, logs } = setup(server.port, { password: 'wrong-password-9Zr', maxAttempts: 2 });
    const issued = await signupLike(sql, context, 'erin@mail.acme.dev');
    const w = worker();
    assert.deepEqual(await w.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    assert.match((await outboxRow(sql, issued.messageId)).last_error ?? '', /^SMTP 535: /);
    clock.advance(30);
    assert.deepEqual(await w.runOnce(), { claimed: 1, sent: 0, retried: 0, dead: 1 });
    assert.equal(server.received.length, 0);
    for (const secret of ['wrong-password-9Zr', credentials.password, issued.secret])
      assert.ok(!logs.text.includes(secret), 'no secret in the logs');
  });

  test('with delivery unconfigured the account sequence stores nothing', async () => {
    const clock = new TestClock();
    const before = await countMessages(sql);
    const countVerifications = async () =>
      (await sql<{ count: number }[]>`select count(*)::int as count from verifications`)[0]?.count;
    const verificationsBefore = await countVerifications();
    await assert.rejects(
      signupLike(
        sql,
        { config: makeConfig(), deliveryKey: secrets.delivery, clock, identityId },
        'frank@mail.acme.dev',
      ),
      { code: 'delivery_not_configured', status: 503 },
    );
    assert.deepEqual(await countMessages(sql), before);
    assert.equal(await countVerifications(), verificationsBefore);
  });

  test('a failure after enqueueing rolls back both the verification and its message', async () => {
    const { context } = setup(1);
    const before = await countMessages(sql);
    await assert.rejects(
      signupLike(sql, context, 'gina@mail.acme.dev', async () => {
        throw new Error('later step failed');
      }),
      /later step failed/,
    );
    assert.deepEqual(await countMessages(sql), before);
  });
});
