import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { createSmtpRelayTransport } from '../../src/delivery/smtp-relay.ts';
import { createDeliveryWorker } from '../../src/delivery/worker.ts';
import { TestClock, testSecrets } from '../helpers/app.ts';
import { makeConfig, scratchDir, smtpPasswordFile } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { outboxRow } from './fixtures.ts';
import { makeCertificate, TestSmtpServer } from './smtp-server.ts';

const credentials = { username: 'mailer', password: 'relay-password-7Qx' };
const certificate = await makeCertificate(scratchDir());
const database = await createTestDatabase();
const secrets = testSecrets();

describe('a process killed while sending', () => {
  test('its claimed message is delivered by a new worker after the lease, exactly once', async () => {
    const stalling = await new TestSmtpServer({ certificate, credentials, stall: true }).start();
    after(() => stalling.stop());
    const child = spawn(process.execPath, [new URL('./crash-child.ts', import.meta.url).pathname], {
      env: {
        ...process.env,
        CHILD_DATABASE_URL: database.url,
        DELIVERY_KEY: secrets.delivery.toString('base64url'),
        SMTP_PORT: String(stalling.port),
        SMTP_PASSWORD_FILE: smtpPasswordFile(credentials.password),
        CA_FILE: certificate.caFile,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [firstLine] = (await once(child.stdout, 'data')) as [Buffer];
    const messageId = firstLine.toString().trim();
    await stalling.stalled;
    child.kill('SIGKILL');
    await once(child, 'exit');
    assert.equal((await outboxRow(database.sql, messageId)).state, 'pending');

    const relay = await new TestSmtpServer({ certificate, credentials }).start();
    after(() => relay.stop());
    const config = makeConfig({
      delivery: {
        kind: 'smtp',
        from: 'no-reply@acme.dev',
        smtp: {
          host: 'localhost',
          port: relay.port,
          username: credentials.username,
          password_file: smtpPasswordFile(credentials.password),
          ca_file: certificate.caFile,
        },
      },
    });
    const clock = new TestClock();
    const worker = createDeliveryWorker({
      sql: database.sql,
      transport: createSmtpRelayTransport(config.delivery.smtp),
      deliveryKey: secrets.delivery,
      from: config.delivery.from,
      clock: clock.now,
      log: pino({ level: 'silent' }),
    });
    assert.equal((await worker.runOnce()).claimed, 0, 'the dead process still holds the lease');
    clock.advance(301);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.equal(relay.received.length, 1);
    assert.match(relay.received[0]?.raw ?? '', /Subject: Sign-up attempt at Acme/);
    assert.deepEqual(
      { ...(await outboxRow(database.sql, messageId)) },
      { state: 'sent', attempts: 2, sealed_body: null, last_error: null },
    );
    clock.advance(3600);
    assert.equal((await worker.runOnce()).claimed, 0);
  });
});
