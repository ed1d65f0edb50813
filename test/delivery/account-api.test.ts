// The API the account routes will call, exercised the way they will call it: guard, then sendVerification in one
// transaction, then the person presents what the message carried.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createOutbox } from '../../src/delivery/outbox.ts';
import { assertDeliveryReady, assertSelfServiceAvailable } from '../../src/delivery/status.ts';
import type { OutgoingMessage } from '../../src/delivery/transport.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { verificationError } from '../../src/verification/errors.ts';
import { sendVerification } from '../../src/verification/send-verification.ts';
import { consumeVerification } from '../../src/verification/verification.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { makeOwner } from './fixtures.ts';

const ready = makeConfig({
  self_service: { enabled: true },
  delivery: { kind: 'webhook', from: 'no-reply@acme.dev', webhook: { url: 'https://hooks.acme.dev/mail' } },
});

describe('the account routes API', () => {
  test('guard errors reach the client as the standard envelope, with the reason only in the log', async () => {
    const { app, logs } = await startTestApp({
      config: makeConfig({ self_service: { enabled: true } }),
      extend(app) {
        app.post('/probe/signup', async () => {
          assertSelfServiceAvailable(makeConfig({ self_service: { enabled: true } }));
        });
        app.post('/probe/disabled', async () => {
          assertSelfServiceAvailable(makeConfig());
        });
        app.post('/probe/verify', async () => {
          throw verificationError('expired');
        });
      },
    });
    const answer = async (url: string) => {
      const response = await app.inject({ method: 'POST', url });
      return { status: response.statusCode, body: response.json() as Record<string, unknown> };
    };
    const unconfigured = await answer('/probe/signup');
    assert.deepEqual(unconfigured, {
      status: 503,
      body: {
        error: 'delivery_not_configured',
        error_description: 'Verification messages cannot be sent: message delivery is not configured.',
        request_id: unconfigured.body.request_id,
      },
    });
    assert.match(String(unconfigured.body.request_id), /^[A-Za-z0-9_-]{16}$/);
    assert.match(logs.text, /delivery.kind is \\"none\\"/);

    const disabled = await answer('/probe/disabled');
    assert.deepEqual(disabled, {
      status: 403,
      body: {
        error: 'self_service_disabled',
        error_description: 'Account self-service is not enabled on this service.',
        request_id: disabled.body.request_id,
      },
    });
    const expired = await answer('/probe/verify');
    assert.deepEqual(expired, {
      status: 400,
      body: {
        error: 'verification_expired',
        error_description: 'The verification has expired; request a new one.',
        request_id: expired.body.request_id,
      },
    });
  });

  test('sendVerification queues the message in the caller transaction; its secret consumes the verification', async () => {
    const { sql, clock, secrets } = await startTestApp({ config: ready });
    const identityId = await makeOwner(sql);
    const outbox = createOutbox({ config: ready, deliveryKey: secrets.delivery, clock: clock.now });

    assertDeliveryReady(ready);
    const sent = await sql.begin((tx) =>
      sendVerification(
        tx,
        outbox,
        { purpose: 'password_reset', identityId, email: 'owner@acme.dev' },
        clock.now(),
        'en',
      ),
    );
    assert.deepEqual(Object.keys(sent).sort(), ['expiresAt', 'messageId', 'verificationId'], 'no secret returned');
    assert.equal(sent.expiresAt.getTime() - clock.now().getTime(), 1_800_000);

    const delivered: OutgoingMessage[] = [];
    const worker = createDeliveryWorker({
      sql,
      transport: { kind: 'webhook', send: async (m) => void delivered.push(m), close() {} },
      deliveryKey: secrets.delivery,
      from: ready.delivery.from,
      clock: clock.now,
      log: pino({ level: 'silent' }),
    });
    await worker.runOnce();
    const [message] = delivered;
    assert.ok(message);
    assert.equal(message.template, 'password_reset');
    const fragment = new URLSearchParams(
      /#(.+)$/m.exec(message.text.split('\n').find((l) => l.includes('#')) ?? '')?.[1],
    );
    assert.equal(fragment.get('verification_id'), sent.verificationId);
    const secret = fragment.get('secret') ?? '';
    const result = await consumeVerification(
      sql,
      { verificationId: sent.verificationId, secret, purpose: 'password_reset' },
      clock.now(),
    );
    assert.deepEqual(result, { ok: true, identityId, email: 'owner@acme.dev', purpose: 'password_reset' });
  });
});
