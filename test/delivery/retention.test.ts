import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { createDevMailboxTransport } from '../../src/delivery/dev-mailbox.ts';
import { purgeDeliveryRecords } from '../../src/delivery/retention.ts';
import { countMessages } from '../../src/delivery/store.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeOwner, signupLike } from './fixtures.ts';

const { sql } = await createTestDatabase();
const identityId = await makeOwner(sql);
const secrets = testSecrets();

describe('delivery retention', () => {
  test('sent messages and spent verifications are deleted 30 days after they finished, pending ones never', async () => {
    const config = makeConfig({
      delivery: { kind: 'webhook', from: 'a@acme.dev', webhook: { url: 'https://hooks.acme.dev/x' } },
    });
    const clock = new TestClock(Date.parse('2026-04-01T00:00:00Z'));
    const context = { config, deliveryKey: secrets.delivery, clock, identityId };
    const worker = createDeliveryWorker({
      sql,
      transport: { kind: 'webhook', send: async () => {}, close() {} },
      deliveryKey: secrets.delivery,
      from: 'a@acme.dev',
      clock: clock.now,
      log: pino({ level: 'silent' }),
    });
    await signupLike(sql, context, 'old@acme.dev');
    assert.equal((await worker.runOnce()).sent, 1);
    clock.advance(86_400 * 29);
    const pending = await signupLike(sql, context, 'new@acme.dev');
    assert.deepEqual(await purgeDeliveryRecords(sql, clock.now()), { messages: 0, kept: 0 });
    assert.equal((await runHousekeeping(sql, clock.now())).verifications, 0);

    clock.advance(86_400 * 3);
    // The first message was sent on day 0 and its verification expired on day 1: both are past 30 days now.
    assert.deepEqual(await purgeDeliveryRecords(sql, clock.now()), { messages: 1, kept: 0 });
    assert.equal((await runHousekeeping(sql, clock.now())).verifications, 1);
    assert.deepEqual(await countMessages(sql), { pending: 1, sent: 0, dead: 0 });
    const [row] = await sql`select id from verifications`;
    assert.equal(row?.id, pending.verificationId);
  });

  test('the development mailbox keeps a message 7 days, then housekeeping deletes it', async () => {
    const clock = new TestClock(Date.parse('2026-05-01T00:00:00Z'));
    const transport = createDevMailboxTransport({
      sql,
      deliveryKey: secrets.delivery,
      clock: clock.now,
      notice: () => {},
    });
    const message = {
      template: 'signup_attempt_notice',
      from: '',
      to: 'a@acme.dev',
      subject: 'S',
      text: 'T',
      html: 'H',
    };
    await transport.send({ ...message, id: 'msg_old' }, new AbortController().signal);
    clock.advance(86_400 * 6);
    await transport.send({ ...message, id: 'msg_new' }, new AbortController().signal);
    assert.deepEqual(await purgeDeliveryRecords(sql, clock.now()), { messages: 0, kept: 0 });
    clock.advance(86_400 * 2);
    assert.deepEqual(await purgeDeliveryRecords(sql, clock.now()), { messages: 0, kept: 1 });
    const rows = await sql`select id from dev_mailbox_messages`;
    assert.deepEqual(
      [...rows].map((r) => r.id),
      ['msg_new'],
    );
  });
});
