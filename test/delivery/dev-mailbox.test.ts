// The development mailbox (delivery.kind = "dev_mailbox"): sign-up goes through the real outbox and worker, the message
// is kept (not sent), GET /admin/mailbox shows it to an owner, the terminal gets one line with its link, and the JSON
// log never carries the secret.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { createConfiguredTransport } from '../../src/delivery/run.ts';
import { startServer } from '../../src/server.ts';
import { JSON_HEADERS } from '../helpers/accounts.ts';
import { assertAdminError } from '../helpers/admin-api.ts';
import { LogCapture, startTestApp, type TestApp } from '../helpers/app.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { devMailboxWorker } from '../helpers/dev-mailbox.ts';
import { verificationLink } from '../helpers/mailbox.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

const mailboxConfig = () =>
  makeConfig({
    organization: { name: 'Acme Robotics' },
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox' },
  });

/** The real worker over the dev-mailbox transport; notices go to `notices`. */
const mailboxWorker = (t: TestApp, notices: string[]) => devMailboxWorker(t, (line) => notices.push(line));

async function signUp(t: TestApp, email: string) {
  const response = await t.app.inject({
    method: 'POST',
    url: '/account/signup',
    headers: JSON_HEADERS,
    payload: { email, password: 'a long sign-up password 4471', display_name: 'Test User' },
  });
  assert.equal(response.statusCode, 201, response.body);
}

describe('delivery.kind = "dev_mailbox"', () => {
  test('a sign-up message is kept, listed by GET /admin/mailbox, announced in one line, and its link verifies', async () => {
    const t = await startTestApp({ config: mailboxConfig() });
    const notices: string[] = [];
    const worker = mailboxWorker(t, notices);
    await signUp(t, 'newcomer@acme-robotics.dev');
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });

    const admin = await makeAdmin(t);
    const response = await t.app.inject({ method: 'GET', url: '/admin/mailbox', headers: { cookie: admin.cookie } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['cache-control'], 'no-store');
    const { messages } = response.json() as { messages: Record<string, string>[] };
    assert.equal(messages.length, 1);
    const [message] = messages;
    assert.ok(message);
    const link = verificationLink(message.text ?? '');
    assert.deepEqual(message, {
      id: message.id,
      template: 'signup_verification',
      to: 'newcomer@acme-robotics.dev',
      subject: 'Confirm your email address for Acme Robotics',
      text: message.text,
      link: `http://localhost:8080/account/email/verify#verification_id=${link.verification_id}&secret=${link.secret}`,
      kept_at: t.clock.now().toISOString(),
    });
    assert.match(message.id ?? '', /^msg_/);

    assert.deepEqual(notices, [
      `mailbox: "Confirm your email address for Acme Robotics" for newcomer@acme-robotics.dev: ${message.link}`,
    ]);
    // The JSON log says a message went out, never the secret it carried.
    assert.match(t.logs.text, /outbox message sent/);
    assert.ok(!t.logs.text.includes(link.secret), 'the secret stays out of the log');

    // The outbox row is finished like any sent message: its sealed body is gone.
    const [row] = await t.sql`select state, sealed_body from outbox_messages where id = ${message.id ?? ''}`;
    assert.deepEqual({ ...row }, { state: 'sent', sealed_body: null });

    const verified = await t.app.inject({
      method: 'POST',
      url: '/account/email/verify',
      headers: JSON_HEADERS,
      payload: { verification_id: link.verification_id, secret: link.secret },
    });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(verified.json().email_verified, true);
  });

  test('a message re-sent after a crash (same outbox id) is kept and announced once', async () => {
    const t = await startTestApp({ config: mailboxConfig() });
    const notices: string[] = [];
    const transport = createConfiguredTransport(t.config, {
      deliveryKey: t.secrets.delivery,
      mailbox: { sql: t.sql, clock: t.clock.now, notice: (line) => notices.push(line) },
    });
    const message = {
      id: 'msg_resent',
      template: 'signup_attempt_notice',
      from: '',
      to: 'someone@localhost',
      subject: 'Sign-up attempt at Acme',
      text: 'Someone tried.\n',
      html: '<p>Someone tried.</p>',
    };
    await transport?.send(message, new AbortController().signal);
    await transport?.send(message, new AbortController().signal);
    const [count] = await t.sql<{ n: number }[]>`select count(*)::int as n from dev_mailbox_messages`;
    assert.equal(count?.n, 1);
    assert.deepEqual(notices, [
      'mailbox: "Sign-up attempt at Acme" for someone@localhost: (no link; read it on the console Mailbox page)',
    ]);
  });

  test('GET /admin/mailbox refuses a caller without a session with 401 login_required', async () => {
    const t = await startTestApp({ config: mailboxConfig() });
    const response = await t.app.inject({ method: 'GET', url: '/admin/mailbox' });
    assertAdminError(
      { status: response.statusCode, json: response.json(), headers: response.headers },
      401,
      'login_required',
      'Sign in first.',
    );
  });

  test('GET /admin/mailbox does not exist (404) when delivery is anything but dev_mailbox', async () => {
    const t = await startTestApp({ config: makeConfig({ self_service: { enabled: true } }) });
    const admin = await makeAdmin(t);
    const response = await t.app.inject({ method: 'GET', url: '/admin/mailbox', headers: { cookie: admin.cookie } });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().error, 'not_found');
  });

  test('gatehouse serve starts the worker and prints the notice line of a sign-up message on its own', async () => {
    const dir = scratchDir();
    const secrets = path.join(dir, 'secrets');
    generateSecretFiles(secrets);
    const database = await createTestDatabase();
    const config: Config = {
      ...mailboxConfig(),
      database: { ...mailboxConfig().database, url: database.url },
      secrets: { dir: secrets },
      data: { dir },
    };
    let announced: (line: string) => void = () => {};
    const line = new Promise<string>((resolve) => {
      announced = resolve;
    });
    const logs = new LogCapture();
    const server = await startServer(
      { config, file: null, development: false, deferred: [] },
      { logStream: logs, notice: (text) => announced(text) },
    );
    try {
      const response = await fetch(`${server.url}/account/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://localhost:8080' },
        body: JSON.stringify({
          email: 'first@acme-robotics.dev',
          password: 'a long sign-up password 4471',
          display_name: 'F',
        }),
      });
      assert.equal(response.status, 201, await response.text());
      // The worker is woken by the outbox's NOTIFY: no polling interval to wait out.
      const notice = await line;
      assert.match(
        notice,
        /^mailbox: "Confirm your email address for Acme Robotics" for first@acme-robotics\.dev: http:\/\/localhost:8080\/account\/email\/verify#verification_id=vrf_[\w-]+&secret=[\w-]+$/,
      );
      const secret = new URLSearchParams(notice.split('#')[1]).get('secret') ?? '';
      assert.ok(secret.length > 20 && !logs.text.includes(secret), 'the log lines never carry the secret');
    } finally {
      await server.stop();
    }
  });
});
