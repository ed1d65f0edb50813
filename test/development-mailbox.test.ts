// `npm start` with no configuration file, as a newcomer runs it: self-service is on, and a sign-up's confirmation
// message is kept in the development mailbox and printed on the terminal as one line with its link, which the JSON
// log (in .gatehouse/log, off the terminal) never carries.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { freePort } from './helpers/browser-app.ts';
import { MAIN } from './helpers/cli.ts';
import { scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';
import { until } from './helpers/node-http.ts';

describe('development instance: the development mailbox', () => {
  test('a sign-up prints one mailbox line with a working link on stderr, and the log lines never carry its secret', async () => {
    const cwd = scratchDir();
    const port = await freePort();
    const database = await createTestDatabase();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      GATEHOUSE_LISTEN: `127.0.0.1:${port}`,
      DATABASE_URL: database.url,
    };
    delete env.GATEHOUSE_CONFIG;
    delete env.GATEHOUSE_ISSUER;
    delete env.GATEHOUSE_LOG;
    const child = spawn(process.execPath, [MAIN, 'serve'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    const waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];
    const check = () => {
      for (const waiter of [...waiters]) {
        const match = waiter.pattern.exec(stderr);
        if (match) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(match);
        }
      }
    };
    const stderrMatch = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        waiters.push({ pattern, resolve });
        child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
        check();
      });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      check();
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const issuer = (await stderrMatch(/issuer: +(\S+)\n/))[1] ?? '';
      await stderrMatch(/Gatehouse is listening/);
      const base = `http://127.0.0.1:${port}`;
      const offered = await (await fetch(`${base}/auth/providers`)).json();
      assert.deepEqual(
        { self_service: offered.self_service, dev_mailbox: offered.dev_mailbox },
        { self_service: true, dev_mailbox: true },
      );

      const signup = await fetch(`${base}/account/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: new URL(issuer).origin },
        body: JSON.stringify({
          email: 'newcomer@acme-robotics.dev',
          password: 'first hour passphrase 2026',
          display_name: 'Newcomer',
        }),
      });
      assert.equal(signup.status, 201, await signup.text());
      const [line = '', link = ''] = await stderrMatch(/^mailbox: .*: (\S+)$/m);
      assert.equal(
        line,
        `mailbox: "Confirm your email address for Development" for newcomer@acme-robotics.dev: ${link}`,
      );
      assert.ok(link.startsWith(`${issuer}/account/email/verify#verification_id=vrf_`), link);
      const secret = new URLSearchParams(new URL(link).hash.slice(1)).get('secret') ?? '';
      assert.ok(secret.length > 20);

      // The link works: the verify endpoint takes what the fragment carries.
      const fragment = new URLSearchParams(new URL(link).hash.slice(1));
      const verified = await fetch(`${base}/account/email/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: new URL(issuer).origin },
        body: JSON.stringify({ verification_id: fragment.get('verification_id'), secret }),
      });
      assert.equal(verified.status, 200, await verified.text());
      const log = await until('the sent message in .gatehouse/log', async () => {
        const text = readFileSync(path.join(cwd, '.gatehouse/log'), 'utf8');
        return text.includes('"msg":"outbox message sent"') ? text : undefined;
      });
      assert.ok(!log.includes(secret), 'no JSON log line carries the secret');
      assert.equal(stdout, '', 'the terminal carries no JSON log line');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
  });
});
