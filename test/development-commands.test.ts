// The commands a newcomer types in the directory where `npm start` runs a development instance on its embedded
// PostgreSQL: they reach that running database (instead of starting a second server on the same files), print links
// for the address the instance listens on, and a command that cannot run says why in one line.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { freePort, runCli, startServe } from './helpers/cli.ts';
import { scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';

const cwd = scratchDir();
// Run as root under a directory the postgres user cannot enter, the cluster lives under /var/tmp instead.
const fallbackCluster = `/var/tmp/gatehouse-embedded-${createHash('sha256').update(path.join(cwd, '.gatehouse')).digest('hex').slice(0, 16)}`;
after(() => rmSync(fallbackCluster, { recursive: true, force: true }));
const port = await freePort();
const issuer = `http://localhost:${port}`;
// DATABASE_URL unset: the development instance starts the embedded PostgreSQL under ./.gatehouse.
const instance = await startServe([], { cwd, env: { GATEHOUSE_LISTEN: `127.0.0.1:${port}` } });
/** The commands run in the same directory, in another shell: no GATEHOUSE_LISTEN, no DATABASE_URL. */
const gatehouse = (...args: string[]) => runCli(args, { cwd });

async function jwksKids(): Promise<string[]> {
  const response = await fetch(`${issuer}/.well-known/jwks.json`);
  return ((await response.json()) as { keys: { kid: string }[] }).keys.map((key) => key.kid);
}

describe('gatehouse commands while the development instance runs', () => {
  test('info shows the running instance and the issuer it serves', async () => {
    const result = await gatehouse('info');
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.split('\n');
    assert.ok(lines.includes(`issuer:       ${issuer}`), result.stdout);
    assert.ok(lines.includes(`listen:       127.0.0.1:${port}`), result.stdout);
    assert.match(result.stdout, new RegExp(`\\ndevelopment:  running \\(pid \\d+\\) on 127\\.0\\.0\\.1:${port}\\n`));
  });

  test('keys list reads the running database: the one key the instance publishes, signing', async () => {
    const [kid] = await jwksKids();
    const result = await gatehouse('keys', 'list');
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    assert.equal(result.stdout, `${kid}  signing\n`);
  });

  test('keys rotate adds a signing key in the running database and retires the old one', async () => {
    const [old] = await jwksKids();
    const rotated = await gatehouse('keys', 'rotate');
    assert.equal(rotated.code, 0, rotated.stderr);
    const kid =
      /^Added signing key ([\w-]{43}); every node signs with it within a second \(within 30 seconds where tokens\.state_cache_seconds is 0\)\.\n$/.exec(
        rotated.stdout,
      )?.[1];
    assert.ok(kid, rotated.stdout);
    const listed = await gatehouse('keys', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`^${old}  retired \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n${kid}  signing\\n$`));
  });

  test('audit verify walks the running database and exits 0', async () => {
    const result = await gatehouse('audit', 'verify');
    assert.equal(result.stderr, '');
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^OK: \d+ records? in \d+ chains? verified\n/);
  });

  test('doctor reports the embedded database reachable and migrated, and no failure', async () => {
    const result = await gatehouse('doctor');
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const lines = result.stdout.split('\n');
    assert.ok(lines.includes('ok    database   embedded is reachable'), result.stdout);
    assert.ok(
      lines.some((line) => /^ok {4}migrations all \d+ applied$/.test(line)),
      result.stdout,
    );
    assert.ok(lines.includes(`info  tls        external: plain HTTP at ${issuer} (local development)`));
    assert.ok(!lines.some((line) => line.startsWith('fail') || line.startsWith('warn')), result.stdout);
  });

  test('owner enroll-link prints a link on the instance’s own address, and it opens', async () => {
    const result = await gatehouse('owner', 'enroll-link');
    assert.equal(result.code, 0, result.stderr);
    const link = new RegExp(`\\n {2}(${issuer}/enroll)#token=[\\w-]{43}\\n$`).exec(result.stdout)?.[1];
    assert.ok(link, result.stdout);
    assert.equal((await fetch(link)).status, 200);
  });

  test('a second development instance in the same directory exits 69 with one line naming the running database', async () => {
    const other = await freePort();
    const result = await runCli(['serve'], { cwd, env: { GATEHOUSE_LISTEN: `127.0.0.1:${other}` } });
    assert.equal(result.code, 69);
    assert.match(
      result.stderr,
      /^gatehouse serve: the embedded PostgreSQL in \S+ is already running \(postgres pid (\d+)\): stop the `gatehouse serve` that uses it \(or, if none is left, PostgreSQL itself: kill -INT \1\), or set DATABASE_URL\n$/,
    );
  });

  test('a serve on the port in use exits 69 with one line: the port, and how to pick another', async () => {
    const elsewhere = scratchDir();
    const result = await runCli(['serve'], { cwd: elsewhere, env: { GATEHOUSE_LISTEN: `127.0.0.1:${port}` } });
    assert.equal(result.code, 69);
    assert.match(
      result.stderr,
      new RegExp(
        `^gatehouse serve: Port ${port} on 127\\.0\\.0\\.1 is in use: stop what uses it or start with GATEHOUSE_LISTEN=127\\.0\\.0\\.1:\\d+\\n$`,
      ),
    );
    assert.equal(existsSync(path.join(elsewhere, '.gatehouse')), false, 'nothing was started before the port check');
  });

  test('once the instance stops, info says so and keys list starts the embedded database itself', async () => {
    assert.equal(await instance.stop(), 0);
    assert.equal(existsSync(path.join(cwd, '.gatehouse', 'instance.json')), false);
    const info = await gatehouse('info');
    assert.match(info.stdout, /\ndevelopment: {2}not running in this directory\n/);
    assert.ok(info.stdout.includes('issuer:       http://localhost:8080\n'), info.stdout);
    const listed = await gatehouse('keys', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^[\w-]{43} {2}retired \S+\n[\w-]{43} {2}signing\n$/);
  });
});

describe('gatehouse commands in a directory without a development instance or a config file', () => {
  for (const args of [['keys', 'list'], ['audit', 'verify'], ['owner', 'enroll-link'], ['doctor']])
    test(`${args.join(' ')} exits 78 with one line saying to start one, and creates nothing`, async () => {
      const empty = scratchDir();
      const result = await runCli(args, { cwd: empty });
      assert.equal(result.code, 78);
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        `gatehouse ${args[0]}: no configuration file (--config FILE, GATEHOUSE_CONFIG or /etc/gatehouse/gatehouse.toml) and no development instance in ${empty}/.gatehouse: start one in this directory with \`npm start\`, or pass --config FILE\n`,
      );
      assert.equal(existsSync(path.join(empty, '.gatehouse')), false);
    });
});

describe('development issuer and listener', () => {
  test('GATEHOUSE_ISSUER wins over the listener, with a one-line warning when they disagree; commands use the instance’s DATABASE_URL', async () => {
    const { url } = await createTestDatabase({ migrated: false });
    const listen = await freePort();
    const dir = scratchDir();
    const server = await startServe([], {
      cwd: dir,
      env: { DATABASE_URL: url, GATEHOUSE_ISSUER: 'http://localhost:8080', GATEHOUSE_LISTEN: `127.0.0.1:${listen}` },
    });
    assert.match(server.output.stderr, /\n {2}issuer: {2}http:\/\/localhost:8080\n/);
    // A command in another shell, without DATABASE_URL, reaches the instance's database, not an embedded one.
    const listed = await runCli(['keys', 'list'], { cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^[\w-]{43} {2}signing\n$/);
    // startEmbeddedPostgres writes its password file in the data directory wherever the cluster itself lives.
    assert.equal(
      existsSync(path.join(dir, '.gatehouse', 'postgres-password')),
      false,
      'no embedded server was started',
    );
    assert.ok(
      server.output.stderr.includes(
        `\n  WARNING: the issuer http://localhost:8080 is port 8080 on localhost, but the listener is 127.0.0.1:${listen}: links to the issuer will not reach this server unless something on port 8080 forwards to it\n`,
      ),
      server.output.stderr,
    );
    assert.equal(await server.stop(), 0);
  });
});
