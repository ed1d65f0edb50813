// `gatehouse setup --domain localhost --listen 127.0.0.1:PORT` on a machine without a proxy: the issuer it writes is
// the listener's address, so the enrollment link it prints opens once `gatehouse serve` runs; and doctor warns when
// a loopback issuer and the listener disagree (external TLS, nothing in between).
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { freePort, runCli, startServe } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { loadConfig } from '../config/load.ts';

async function setup(domain: string, listen: string, extra: string[] = []) {
  const dir = scratchDir();
  const { url } = await createTestDatabase({ migrated: false });
  const config = path.join(dir, 'gatehouse.toml');
  const result = await runCli([
    ...['setup', '--config', config, '--domain', domain, '--listen', listen],
    ...['--org-name', 'Acme', '--org-id', 'acme', '--owner', 'alice@acme.test', '--database-url', url],
    ...extra,
  ]);
  return { config, result };
}

describe('gatehouse setup --domain localhost', () => {
  test('writes the listener port into a plain-http issuer, and the enrollment link it prints opens on serve', async () => {
    const port = await freePort();
    const { config, result } = await setup('localhost', `127.0.0.1:${port}`);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(loadConfig({ configPath: config, env: {} }).config.server.issuer, `http://localhost:${port}`);
    assert.match(result.stdout, new RegExp(`\\nIssuer: http://localhost:${port} {3}TLS: external\\n`));
    assert.doesNotMatch(result.stdout, /Warning/);
    const link = new RegExp(`\\n {2}(http://localhost:${port}/enroll)#token=[\\w-]{43}\\n`).exec(result.stdout);
    assert.ok(link?.[1], result.stdout);

    const server = await startServe(['--config', config]);
    assert.equal(server.url, `http://127.0.0.1:${port}`);
    assert.doesNotMatch(server.output.stderr, /WARNING/);
    const page = await fetch(link[1]);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<div id="app">/);

    const doctor = await runCli(['doctor', '--config', config]);
    assert.match(
      doctor.stdout,
      new RegExp(`\\ninfo  tls        external: plain HTTP at http://localhost:${port} \\(local`),
    );
    // No issuer/listener mismatch warning (src/config/issuer-listener.ts); other lines may name the issuer host.
    assert.doesNotMatch(doctor.stdout, /will not reach this server/);
    assert.equal(await server.stop(), 0);
  });

  test('--delivery dev_mailbox says what the development mailbox is, not "Delivery dev_mailbox:" and nothing more', async () => {
    const port = await freePort();
    const { config, result } = await setup('localhost', `127.0.0.1:${port}`, ['--delivery', 'dev_mailbox']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(loadConfig({ configPath: config, env: {} }).config.delivery.kind, 'dev_mailbox');
    assert.match(
      result.stdout,
      /\nMessage delivery: development mailbox \(dev_mailbox\): messages are kept for the console and the terminal, not sent\n/,
    );
    assert.doesNotMatch(result.stdout, /:\n\S|Delivery dev_mailbox/, 'no line ends in a colon with nothing after it');
  });

  test('an explicit issuer port other than the listener is kept, with a warning from setup and from doctor', async () => {
    const port = await freePort();
    const { config, result } = await setup('localhost:8080', `127.0.0.1:${port}`);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(loadConfig({ configPath: config, env: {} }).config.server.issuer, 'http://localhost:8080');
    const warning = `the issuer http://localhost:8080 is port 8080 on localhost, but the listener is 127.0.0.1:${port}: links to the issuer will not reach this server unless something on port 8080 forwards to it`;
    assert.match(result.stdout, new RegExp(`\\nWarning: ${literal(warning)}\\n`));

    const doctor = await runCli(['doctor', '--config', config]);
    assert.equal(doctor.code, 0, doctor.stdout);
    assert.match(doctor.stdout, new RegExp(`\\nwarn  issuer     ${literal(warning)}\\n`));
  });
});

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
