// Webhook delivery over HTTPS: the receiver's certificate is verified, against delivery.webhook.ca_file when the
// receiver uses a private CA; without it a self-signed receiver gets nothing and the message is retried.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:https';
import { after, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { webhookSecret } from '../../src/delivery/keys.ts';
import { checkWebhookReachable, createWebhookTransport } from '../../src/delivery/webhook.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger, makeOwner, outboxRow, signupLike } from './fixtures.ts';
import { makeCertificate } from './smtp-server.ts';

const { sql } = await createTestDatabase();
const identityId = await makeOwner(sql);
const secrets = testSecrets();
const certificate = await makeCertificate(scratchDir());

const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = createServer({ key: certificate.key, cert: certificate.cert }, (request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ headers: request.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
after(() => receiver.close());
const address = receiver.address();
const url = `https://localhost:${typeof address === 'object' && address ? address.port : 0}/gatehouse`;

function setup(caFile: string) {
  const config = makeConfig({
    delivery: {
      kind: 'webhook',
      from: 'Acme <no-reply@acme.dev>',
      webhook: { url, timeout_seconds: 5, ca_file: caFile },
    },
  });
  const clock = new TestClock();
  const { log } = captureLogger();
  const worker = createDeliveryWorker({
    sql,
    transport: createWebhookTransport(config.delivery.webhook, { deliveryKey: secrets.delivery, clock: clock.now }),
    deliveryKey: secrets.delivery,
    from: config.delivery.from,
    clock: clock.now,
    log,
    random: () => 0,
  });
  return { config, worker, context: { config, deliveryKey: secrets.delivery, clock, identityId } };
}

describe('webhook delivery over HTTPS', () => {
  test('delivers signed JSON to a receiver whose certificate delivery.webhook.ca_file trusts', async () => {
    const { worker, context, config } = setup(certificate.caFile);
    const issued = await signupLike(sql, context, 'tls@mail.acme.dev');
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    const [delivery] = received;
    assert.ok(delivery);
    const payload = new Webhook(webhookSecret(secrets.delivery)).verify(delivery.body, delivery.headers) as {
      data: { message_id: string };
    };
    assert.equal(payload.data.message_id, issued.messageId);
    assert.deepEqual(await checkWebhookReachable(config.delivery.webhook), { ok: true, status: 204 });
  });

  test('without the CA a self-signed receiver gets nothing and the message is retried', async () => {
    received.length = 0;
    const { worker, context, config } = setup('');
    const issued = await signupLike(sql, context, 'untrusted@mail.acme.dev');
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    assert.equal(received.length, 0);
    assert.equal(
      (await outboxRow(sql, issued.messageId)).last_error,
      'webhook unreachable: DEPTH_ZERO_SELF_SIGNED_CERT',
    );
    assert.deepEqual(await checkWebhookReachable(config.delivery.webhook), {
      ok: false,
      error: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    });
  });
});
