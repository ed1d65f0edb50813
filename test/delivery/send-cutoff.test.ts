// The worker's send cut-off really stops a send: each transport gets an AbortSignal and closes its connection when
// it aborts, and the cut-off message keeps its claim until the lease ends, so no second worker sends it meanwhile.
// Timeouts are injected (a fraction of a second) instead of waiting for the real two minutes; a transport that
// ignored the signal would leave its connection open and the test would fail on its own timeout.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createDirectMxTransport } from '../../src/delivery/direct-mx.ts';
import { createSmtpRelayTransport } from '../../src/delivery/smtp-relay.ts';
import { DeliveryFailure, type OutgoingMessage } from '../../src/delivery/transport.ts';
import { createWebhookTransport } from '../../src/delivery/webhook.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig, scratchDir, smtpPasswordFile } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger, makeOwner, signupLike } from './fixtures.ts';
import { makeCertificate, TestSmtpServer } from './smtp-server.ts';

const dir = scratchDir();
const { sql } = await createTestDatabase();
const identityId = await makeOwner(sql);
const secrets = testSecrets();
const certificate = await makeCertificate(dir);
const LEASE_SECONDS = 300;

/** A webhook receiver that answers only when told to; it records each request and when its connection closed. */
let answering = false;
const requests: { request: IncomingMessage; closed: Promise<unknown> }[] = [];
const receiver = createServer((request, response) => {
  requests.push({ request, closed: once(request.socket, 'close') });
  request.resume();
  if (answering) response.writeHead(204).end();
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
after(() => {
  receiver.closeAllConnections();
  receiver.close();
});
const address = receiver.address();
const port = typeof address === 'object' && address ? address.port : 0;

const message: OutgoingMessage = {
  id: 'msg_cutoff',
  template: 'signup_attempt_notice',
  from: 'no-reply@acme.dev',
  to: 'kim@recipient.dev',
  subject: 'Subject',
  text: 'text',
  html: '<p>html</p>',
};

/** Aborts as a cut-off would once the server holds the message, and asserts the send rejects at once. */
async function assertStopsOnAbort(send: (signal: AbortSignal) => Promise<void>, held: Promise<unknown>) {
  const cutOff = new AbortController();
  const sending = send(cutOff.signal);
  await held;
  cutOff.abort(new Error('cut off'));
  await assert.rejects(sending, (error: unknown) => error instanceof DeliveryFailure && !error.permanent);
}

describe('the delivery worker send cut-off', () => {
  test('a webhook that never answers is cut off, its connection closed, and the message held until the lease ends', {
    timeout: 10_000,
  }, async () => {
    const config = makeConfig({
      delivery: {
        kind: 'webhook',
        from: 'Acme <no-reply@acme.dev>',
        webhook: { url: `http://127.0.0.1:${port}/hook`, timeout_seconds: 30 },
      },
    });
    const clock = new TestClock();
    const { log } = captureLogger();
    const worker = (workerId: string) =>
      createDeliveryWorker({
        sql,
        transport: createWebhookTransport(config.delivery.webhook, { deliveryKey: secrets.delivery }),
        deliveryKey: secrets.delivery,
        from: config.delivery.from,
        clock: clock.now,
        log,
        workerId,
        leaseSeconds: LEASE_SECONDS,
        sendTimeoutSeconds: 0.2,
        random: () => 0,
      });
    const first = worker('worker-first');
    const second = worker('worker-second');
    const issued = await signupLike(sql, { config, deliveryKey: secrets.delivery, clock, identityId }, 'lee@acme.dev');

    assert.deepEqual(await first.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    assert.equal(requests.length, 1);
    await requests[0]?.closed; // the send really stopped: Gatehouse closed the connection

    const [row] = await sql`
      select state, attempts, claimed_by, claim_expires_at, next_attempt_at, last_error, sealed_body is not null as has_body
      from outbox_messages where id = ${issued.messageId}`;
    const leaseEnd = clock.now().getTime() + LEASE_SECONDS * 1000;
    assert.deepEqual(
      { ...row, claim_expires_at: row?.claim_expires_at.getTime(), next_attempt_at: row?.next_attempt_at.getTime() },
      {
        state: 'pending',
        attempts: 1,
        claimed_by: 'worker-first',
        claim_expires_at: leaseEnd,
        next_attempt_at: leaseEnd,
        last_error: 'no answer within 0.2 s',
        has_body: true,
      },
    );

    // Long past the back-off but inside the lease: nobody may send it, the cut-off worker included.
    clock.advance(LEASE_SECONDS - 1);
    assert.equal((await second.runOnce()).claimed, 0);
    assert.equal((await first.runOnce()).claimed, 0);
    assert.equal(requests.length, 1);

    answering = true;
    clock.advance(1);
    assert.deepEqual(await second.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.equal(requests.length, 2);
    assert.equal(requests[1]?.request.headers['webhook-id'], issued.messageId);
  });

  test('the SMTP relay transport closes its connection when the signal aborts mid-message', {
    timeout: 10_000,
  }, async () => {
    const relay = await new TestSmtpServer({
      certificate,
      credentials: { username: 'mailer', password: 'relay-password' },
      stall: true,
    }).start();
    after(() => relay.stop());
    const config = makeConfig({
      delivery: {
        kind: 'smtp',
        smtp: {
          host: 'localhost',
          port: relay.port,
          username: 'mailer',
          password_file: smtpPasswordFile('relay-password'),
          ca_file: certificate.caFile,
        },
      },
    });
    const transport = createSmtpRelayTransport(config.delivery.smtp);
    await assertStopsOnAbort((signal) => transport.send(message, signal), relay.stalled);
    await relay.connectionClosed;
    assert.equal(relay.received.length, 0);
  });

  test('the direct MX transport closes its connection when the signal aborts mid-message', {
    timeout: 10_000,
  }, async () => {
    const mxHost = await new TestSmtpServer({ certificate, credentials: null, stall: true }).start();
    after(() => mxHost.stop());
    const keyFile = path.join(dir, 'dkim.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    const config = makeConfig({
      delivery: {
        kind: 'direct_mx',
        direct_mx: {
          helo_name: 'mx1.acme.dev',
          dkim_domain: 'acme.dev',
          dkim_selector: 's1',
          dkim_private_key_file: keyFile,
        },
      },
    });
    const transport = createDirectMxTransport(config.delivery, {
      resolver: { resolveMx: async () => [{ exchange: 'localhost', priority: 10 }] },
      port: mxHost.port,
    });
    await assertStopsOnAbort((signal) => transport.send(message, signal), mxHost.stalled);
    await mxHost.connectionClosed;
    assert.equal(mxHost.received.length, 0);
  });
});
