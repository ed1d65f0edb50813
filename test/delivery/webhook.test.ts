import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, afterEach, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { webhookSecret } from '../../src/delivery/keys.ts';
import { createWebhookTransport } from '../../src/delivery/webhook.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger, makeOwner, outboxRow, signupLike } from './fixtures.ts';
import { freePort } from './smtp-server.ts';

const { sql } = await createTestDatabase();
const identityId = await makeOwner(sql);
const secrets = testSecrets();

interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver that answers with the queued statuses (200 once the queue is empty). */
const received: Delivery[] = [];
const statuses: number[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    const status = statuses.shift() ?? 200;
    // Redirects point back at this receiver, so one that was followed would show as a second delivery.
    response.writeHead(status, status >= 300 && status < 400 ? { location: '/elsewhere' } : {}).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
after(() => receiver.close());
const address = receiver.address();
const port = typeof address === 'object' && address ? address.port : 0;

function setup(url = `http://127.0.0.1:${port}/gatehouse`) {
  const config = makeConfig({
    organization: { name: 'Acme Robotics' },
    delivery: { kind: 'webhook', from: 'Acme <no-reply@acme.dev>', webhook: { url, timeout_seconds: 5 } },
  });
  const clock = new TestClock();
  const { logs, log } = captureLogger();
  const transport = createWebhookTransport(config.delivery.webhook, {
    deliveryKey: secrets.delivery,
    clock: clock.now,
  });
  const worker = createDeliveryWorker({
    sql,
    transport,
    deliveryKey: secrets.delivery,
    from: config.delivery.from,
    clock: clock.now,
    log,
    random: () => 0,
  });
  return { worker, clock, logs, context: { config, deliveryKey: secrets.delivery, clock, identityId } };
}

describe('webhook delivery (Standard Webhooks)', () => {
  afterEach(async () => {
    received.length = 0;
    statuses.length = 0;
    await sql`delete from outbox_messages where state = 'pending'`;
  });

  test('POSTs signed JSON that a Standard Webhooks verifier accepts', async () => {
    const { worker, context, logs } = setup();
    const issued = await signupLike(sql, context, 'alice@mail.acme.dev');
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.equal(received.length, 1);
    const [delivery] = received;
    assert.ok(delivery);
    const headers = delivery.headers as Record<string, string>;
    assert.equal(headers['content-type'], 'application/json');
    assert.equal(headers['webhook-id'], issued.messageId);

    const secret = webhookSecret(secrets.delivery);
    const payload = new Webhook(secret).verify(delivery.body, headers) as {
      type: string;
      data: Record<string, string>;
    };
    // The same check by hand, from the scheme: HMAC-SHA256 over id.timestamp.body with the base64 secret.
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${delivery.body}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${expected}`);

    assert.equal(payload.type, 'verification.message');
    assert.equal(payload.data.message_id, issued.messageId);
    assert.equal(payload.data.template, 'signup_verification');
    assert.equal(payload.data.to, 'alice@mail.acme.dev');
    assert.equal(payload.data.from, 'Acme <no-reply@acme.dev>');
    assert.equal(payload.data.subject, 'Confirm your email address for Acme Robotics');
    assert.ok(payload.data.text?.includes(issued.secret));
    assert.ok(payload.data.html?.includes(issued.secret));
    assert.ok(!logs.text.includes(issued.secret));
    assert.ok(!logs.text.includes(secret));
  });

  test('a tampered body fails verification', async () => {
    const { worker, context } = setup();
    await signupLike(sql, context, 'bob@mail.acme.dev');
    await worker.runOnce();
    const [delivery] = received;
    assert.ok(delivery);
    assert.throws(() =>
      new Webhook(webhookSecret(secrets.delivery)).verify(
        delivery.body.replace('bob@', 'eve@'),
        delivery.headers as Record<string, string>,
      ),
    );
  });

  test('a 5xx answer is retried after the back-off with the same webhook-id', async () => {
    const { worker, context, clock } = setup();
    const issued = await signupLike(sql, context, 'carol@mail.acme.dev');
    statuses.push(503);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    assert.equal((await outboxRow(sql, issued.messageId)).last_error, 'webhook answered HTTP 503');
    clock.advance(30);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.deepEqual(
      received.map((d) => d.headers['webhook-id']),
      [issued.messageId, issued.messageId],
    );
  });

  test('a network error is retried', async () => {
    const { worker, context } = setup(`http://127.0.0.1:${await freePort()}/nothing-listens`);
    const issued = await signupLike(sql, context, 'dave@mail.acme.dev');
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    assert.equal((await outboxRow(sql, issued.messageId)).last_error, 'webhook unreachable: ECONNREFUSED');
  });

  test('a 4xx answer is not retried: the message is dead at once and its body dropped', async () => {
    const { worker, context, clock } = setup();
    const issued = await signupLike(sql, context, 'erin@mail.acme.dev');
    statuses.push(400);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 0, dead: 1 });
    const row = await outboxRow(sql, issued.messageId);
    assert.deepEqual(
      { ...row },
      { state: 'dead', attempts: 1, sealed_body: null, last_error: 'webhook answered HTTP 400' },
    );
    clock.advance(3600);
    assert.equal((await worker.runOnce()).claimed, 0);
    assert.equal(received.length, 1);
  });

  for (const status of [301, 302, 307, 308])
    test(`a ${status} redirect is not followed and not retried: the message is dead at once and its body dropped`, async () => {
      const { worker, context, clock } = setup();
      const issued = await signupLike(sql, context, 'gus@mail.acme.dev');
      statuses.push(status);
      assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 0, dead: 1 });
      assert.deepEqual(
        { ...(await outboxRow(sql, issued.messageId)) },
        { state: 'dead', attempts: 1, sealed_body: null, last_error: `webhook answered HTTP ${status}` },
      );
      clock.advance(3600);
      assert.equal((await worker.runOnce()).claimed, 0);
      assert.equal(received.length, 1, 'nothing was sent to the redirect target');
    });

  test('408 is retried like 5xx', async () => {
    const { worker, context } = setup();
    await signupLike(sql, context, 'hal@mail.acme.dev');
    statuses.push(408);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
  });

  test('429 is retried like 5xx', async () => {
    const { worker, context } = setup();
    await signupLike(sql, context, 'fay@mail.acme.dev');
    statuses.push(429);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
  });
});
