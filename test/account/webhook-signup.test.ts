// Sign-up → verify → enroll TOTP → sign in, with verification messages delivered by the HTTPS-webhook kind. The
// receiver checks each delivery's Standard Webhooks signature itself, with the standardwebhooks library.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { webhookSecret } from '../../src/delivery/keys.ts';
import { createConfiguredTransport } from '../../src/delivery/run.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { loggerOptions } from '../../src/http/logger.ts';
import { JSON_HEADERS, signIn, totpCode } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { proof, verificationLink } from '../helpers/mailbox.ts';

const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    deliveries.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(204).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
after(() => receiver.close());
const address = receiver.address();
const port = typeof address === 'object' && address ? address.port : 0;

const config = makeConfig({
  organization: { name: 'Acme Robotics' },
  self_service: { enabled: true },
  delivery: {
    kind: 'webhook',
    from: 'Acme Robotics <no-reply@acme-robotics.dev>',
    webhook: { url: `http://127.0.0.1:${port}/hooks/gatehouse`, timeout_seconds: 5 },
  },
});
const t = await startTestApp({ config });
const transport = createConfiguredTransport(config, { deliveryKey: t.secrets.delivery });
assert.ok(transport);
const worker = createDeliveryWorker({
  sql: t.sql,
  transport,
  deliveryKey: t.secrets.delivery,
  from: config.delivery.from,
  clock: t.clock.now,
  log: pino(loggerOptions('info'), t.logs),
});
const post = (url: string, payload: object, cookie = '') =>
  t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) }, payload });

describe('self-service over the webhook delivery kind', () => {
  test('the signed message carries the link that verifies the account, which then enrolls TOTP and signs in', async () => {
    const email = 'babbage@acme-robotics.dev';
    const password = 'difference engine passphrase 1822';
    assert.equal((await post('/account/signup', { email, password, display_name: 'Charles' })).statusCode, 201);
    await worker.runOnce();
    assert.equal(deliveries.length, 1);
    const [delivery] = deliveries;
    assert.ok(delivery);

    // The receiver's own check; it throws on a bad signature. A tampered body must fail it.
    const verifier = new Webhook(webhookSecret(t.secrets.delivery));
    const headers = {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    };
    // standardwebhooks refuses timestamps 5 minutes away from the real clock; the test clock starts at real time.
    const payload = verifier.verify(delivery.body, headers) as {
      type: string;
      data: { to: string; subject: string; text: string };
    };
    assert.throws(() => verifier.verify(delivery.body.replace('Acme', 'Evil'), headers));
    assert.equal(payload.type, 'verification.message');
    assert.equal(payload.data.to, email);
    assert.equal(payload.data.subject, 'Confirm your email address for Acme Robotics');

    const link = verificationLink(payload.data.text);
    assert.equal((await post('/account/email/verify', { ...proof(link), password })).statusCode, 200);
    const first = await signIn(t.app, email, { password });
    assert.equal(first.response.statusCode, 200);
    const { secret } = (await post('/account/totp/start', {}, first.session)).json() as { secret: string };
    t.clock.advance(30);
    assert.equal(
      (await post('/account/totp/complete', { code: totpCode(secret, t.clock.now()) }, first.session)).statusCode,
      200,
    );
    t.clock.advance(30);
    const signedIn = await signIn(t.app, email, { password, totp: totpCode(secret, t.clock.now()) });
    assert.equal(signedIn.response.statusCode, 200);
    assert.equal((signedIn.response.json() as { aal: string }).aal, 'aal2');
  });
});
