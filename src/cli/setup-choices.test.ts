// setup's database, delivery and provider choices. `--database local` runs apt-get, systemctl and runuser from PATH:
// here apt-get and systemctl are stubs that record their arguments, and runuser runs psql as the test database's
// superuser, so the role and database are really created and setup migrates into them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import postgres from 'postgres';
import { runCli } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { adminUrl, createTestDatabase } from '../../test/helpers/database.ts';
import { loadConfig } from '../config/load.ts';

function stubs(): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const dir = scratchDir('gatehouse-apt-');
  const bin = path.join(dir, 'bin');
  mkdirSync(bin);
  const admin = new URL(adminUrl());
  const scripts = {
    'apt-get': `#!/bin/sh\necho "apt-get $* (DEBIAN_FRONTEND=$DEBIAN_FRONTEND)" >> "${dir}/calls"\n`,
    systemctl: `#!/bin/sh\necho "systemctl $*" >> "${dir}/calls"\n`,
    // runuser -u postgres -- psql ...: psql as the test server's superuser instead of the postgres OS user.
    runuser: `#!/bin/sh\necho "runuser $1 $2" >> "${dir}/calls"\nshift 3\nPGHOST=${admin.hostname} PGPORT=${admin.port || 5432} PGUSER=${admin.username || 'postgres'} PGDATABASE=postgres exec "$@"\n`,
  };
  for (const [name, text] of Object.entries(scripts)) {
    writeFileSync(path.join(bin, name), text);
    chmodSync(path.join(bin, name), 0o755);
  }
  return {
    env: { PATH: `${bin}:${process.env.PATH ?? ''}` },
    calls: () => readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n'),
  };
}

const base = (dir: string) => [
  ...['setup', '--config', path.join(dir, 'gatehouse.toml'), '--domain', 'id.acme.test'],
  ...['--org-name', 'Acme', '--org-id', 'acme', '--owner', 'alice@acme.test'],
];

describe('gatehouse setup --database local', () => {
  const name = `gatehouse_local_${process.pid}`;
  after(async () => {
    const sql = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    await sql.unsafe(`drop database if exists ${name} with (force)`);
    await sql.unsafe(`drop role if exists ${name}`);
    await sql.end();
  });

  test('installs PostgreSQL with apt, enables it, creates the role and database, and migrates into them', async () => {
    const dir = scratchDir();
    const system = stubs();
    const result = await runCli([...base(dir), '--database', 'local', '--database-name', name], { env: system.env });
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(system.calls(), [
      'apt-get install -y --no-install-recommends postgresql (DEBIAN_FRONTEND=noninteractive)',
      'systemctl enable --now postgresql',
      'runuser -u postgres',
    ]);
    assert.match(
      result.stdout,
      /^PostgreSQL installed from the distribution packages \(apt-get install postgresql\)\n/,
    );
    assert.match(result.stdout, new RegExp(`\\nDatabase: postgres://${name}:\\*+@127\\.0\\.0\\.1:5432/${name}\\n`));

    const { config } = loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} });
    const url = new URL(config.database.url);
    assert.equal(url.username, name);
    assert.equal(url.pathname, `/${name}`);
    assert.match(url.password, /^[0-9a-f]{48}$/);
    const sql = postgres(config.database.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql`select current_user as who, (select count(*) from organizations)::int as organizations`;
      assert.deepEqual({ ...row }, { who: name, organizations: 1 });
    } finally {
      await sql.end();
    }

    // A rerun: the role and database exist, so nothing is created twice; the role gets a fresh password.
    const rerun = await runCli([...base(dir), '--database', 'local', '--database-name', name], { env: system.env });
    assert.equal(rerun.code, 0, rerun.stderr);
    const again = loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} }).config.database.url;
    assert.notEqual(new URL(again).password, url.password);
  });

  test('refuses --database local together with --database-url, before running anything', async () => {
    const dir = scratchDir();
    const result = await runCli([...base(dir), '--database', 'local', '--database-url', 'postgres://x@db/x']);
    assert.equal(result.code, 64);
    assert.equal(
      result.stderr,
      'gatehouse setup: --database local creates its own database: leave out --database-url\n',
    );
  });

  test('a failing apt-get stops setup with its words, exit 69, before any secret is written', async () => {
    const dir = scratchDir();
    const system = stubs();
    writeFileSync(
      path.join(system.env.PATH?.split(':')[0] ?? '', 'apt-get'),
      '#!/bin/sh\necho "E: Unable to locate package postgresql" >&2\nexit 100\n',
    );
    const result = await runCli([...base(dir), '--database', 'local'], { env: system.env });
    assert.equal(result.code, 69);
    assert.match(
      result.stderr,
      /^Installing PostgreSQL from the distribution's packages \(apt-get install postgresql\)\.\.\.\ngatehouse setup: apt-get install postgresql failed \(apt-get exit 100\): E: Unable to locate package postgresql\n$/,
    );
    assert.deepEqual(readdirSync(dir), [], 'no config, no secrets');
  });
});

describe('gatehouse setup --database external, --delivery and --provider', () => {
  test('writes the external URL, sets up webhook delivery after checking it answers, and adds a provider', async () => {
    const dir = scratchDir();
    const { url } = await createTestDatabase({ migrated: false });
    const receiver = createServer((_, response) => response.writeHead(204).end());
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    after(() => receiver.close());
    const webhook = `http://localhost:${(receiver.address() as AddressInfo).port}/gatehouse`;
    const secretFile = path.join(dir, 'github-secret.txt');
    writeFileSync(secretFile, 'github-client-secret\n');
    const result = await runCli([
      ...base(dir),
      ...['--database', 'external', '--database-url', url],
      ...['--delivery', 'webhook', '--delivery-from', 'Acme <id@acme.test>', '--webhook-url', webhook],
      ...['--provider', 'github', '--client-id', 'gh-client', '--client-secret-file', secretFile],
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { config } = loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} });
    assert.equal(config.database.url, url);
    assert.equal(config.delivery.kind, 'webhook');
    assert.equal(config.delivery.webhook.url, webhook);
    assert.equal(config.providers.github.enabled, true);
    assert.equal(config.providers.github.client_id, 'gh-client');
    assert.equal(
      readFileSync(path.join(dir, 'secrets', 'provider-github.secret'), 'utf8').trim(),
      'github-client-secret',
    );
    assert.match(
      result.stdout,
      new RegExp(`\\nMessage delivery: HTTPS webhook \\(webhook\\)\\n[\\s\\S]*ok {4}webhook {4}${webhook} answers`),
    );
    assert.match(result.stdout, /\nSign-in provider: github\n[\s\S]*github: enabled\n/);
  });

  test('a webhook that does not answer leaves delivery as it was and exits 1; the rest of setup is done', async () => {
    const dir = scratchDir();
    const { url } = await createTestDatabase({ migrated: false });
    const result = await runCli([
      ...base(dir),
      ...['--database-url', url, '--delivery', 'webhook', '--delivery-from', 'id@acme.test'],
      ...['--webhook-url', 'http://localhost:1/gatehouse'],
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /Created organization acme/);
    assert.match(result.stdout, /The new delivery does not work: restored the previous configuration/);
    assert.equal(loadConfig({ configPath: path.join(dir, 'gatehouse.toml'), env: {} }).config.delivery.kind, 'none');
  });

  test('--database external without a URL and without a terminal is refused', async () => {
    const result = await runCli([...base(scratchDir()), '--database', 'external']);
    assert.equal(result.code, 64);
    assert.equal(result.stderr, 'gatehouse setup: --database external needs --database-url postgres://...\n');
  });
});
