import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import { startDelivery } from '../../src/delivery/run.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { captureLogger, makeOwner, outboxRow, signupLike } from './fixtures.ts';

const { sql } = await createTestDatabase();
const identityId = await makeOwner(sql);
const secrets = testSecrets();

describe('the delivery worker as serve runs it', () => {
  test('does not start when delivery is not configured, and says why', () => {
    const { log, logs } = captureLogger();
    assert.equal(startDelivery({ config: makeConfig(), sql, deliveryKey: secrets.delivery, log }), null);
    assert.match(
      logs.text,
      /"delivery":"not_configured","reason":"delivery.kind is \\"none\\"".*delivery worker not started/,
    );
  });

  test('wakes on a committed enqueue (LISTEN/NOTIFY), delivers it, and stops cleanly', async () => {
    const arrivals: string[] = [];
    const receiver = createServer((request, response) => {
      arrivals.push(String(request.headers['webhook-id']));
      response.writeHead(204).end();
      receiver.emit('delivery');
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    after(() => receiver.close());
    const address = receiver.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const config = makeConfig({
      delivery: { kind: 'webhook', from: 'no-reply@acme.dev', webhook: { url: `http://127.0.0.1:${port}/hook` } },
    });
    const { log, logs } = captureLogger();
    const worker = startDelivery({ config, sql, deliveryKey: secrets.delivery, log });
    assert.ok(worker);
    const delivered = once(receiver, 'delivery');
    const clock = new TestClock();
    const issued = await signupLike(sql, { config, deliveryKey: secrets.delivery, clock, identityId }, 'amy@acme.dev');
    await delivered;
    await worker.stop();
    assert.deepEqual(arrivals, [issued.messageId]);
    assert.equal((await outboxRow(sql, issued.messageId)).state, 'sent');
    assert.match(logs.text, /delivery worker started/);
  });
});
