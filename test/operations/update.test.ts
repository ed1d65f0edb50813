// `gatehouse update` / `gatehouse upgrade --channel` on a scratch root: releases built here from stand-in bundles
// (a shell script as bin/gatehouse that records its calls), systemctl stubbed on PATH, real PostgreSQL for the
// schema check, and a readiness endpoint served here that answers for whichever release `current` points at (its
// HEALTH file says ok or broken), so a bad release is seen exactly as the service would show it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { readMigrations } from '../../src/db/migrate.ts';
import { upgrade } from '../../src/operations/upgrade.ts';
import { makeCertificate } from '../delivery/smtp-server.ts';
import { runCli } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';

const ARCH = process.arch === 'arm64' ? 'arm64' : 'x64';
const ALL_MIGRATIONS = readMigrations().map((m) => `${m.file} ${m.checksum}`);

interface FakeRelease {
  version: string;
  channel: 'stable' | 'rc';
  health?: 'ok' | 'broken';
  /** MIGRATIONS lines; null leaves the file out. */
  migrations?: string[] | null;
}

/** bin/gatehouse records each call; `migrate` answers as the real one does when nothing is pending. */
const FAKE_GATEHOUSE = `#!/bin/sh
echo "gatehouse $(basename "$(dirname "$(dirname "$0")")") $*" >> "$STUB_LOG"
[ "$1" = migrate ] && echo "\${FAKE_MIGRATE_OUTPUT:-No pending migrations.}"
exit 0
`;

function publish(releases: string, r: FakeRelease) {
  const dir = path.join(releases, r.channel, r.version);
  mkdirSync(dir, { recursive: true });
  const top = `gatehouse-${r.version}-linux-${ARCH}`;
  const stage = path.join(scratchDir('gatehouse-stage-'), top);
  mkdirSync(path.join(stage, 'bin'), { recursive: true });
  writeFileSync(path.join(stage, 'bin/gatehouse'), FAKE_GATEHOUSE, { mode: 0o755 });
  writeFileSync(path.join(stage, 'HEALTH'), r.health ?? 'ok');
  const migrations = r.migrations === undefined ? ALL_MIGRATIONS : r.migrations;
  if (migrations) writeFileSync(path.join(stage, 'MIGRATIONS'), `${migrations.join('\n')}\n`);
  const name = `${top}.tar.gz`;
  execFileSync('tar', ['-czf', path.join(dir, name), '-C', path.dirname(stage), top]);
  const digest = createHash('sha256')
    .update(readFileSync(path.join(dir, name)))
    .digest('hex');
  writeFileSync(path.join(dir, 'SHA256SUMS'), `${digest}  ${name}\n`);
  writeFileSync(path.join(releases, r.channel, 'LATEST'), `${r.version}\n`);
  return path.join(dir, name);
}

async function host(installed = '1.0.0') {
  const base = scratchDir('gatehouse-update-');
  const root = path.join(base, 'root');
  const opt = path.join(root, 'opt/gatehouse');
  mkdirSync(path.join(opt, installed, 'bin'), { recursive: true });
  writeFileSync(path.join(opt, installed, 'HEALTH'), 'ok');
  execFileSync('ln', ['-s', installed, path.join(opt, 'current')]);
  const stubs = path.join(base, 'stubs');
  mkdirSync(stubs);
  const log = path.join(base, 'calls.log');
  writeFileSync(log, '');
  writeFileSync(path.join(stubs, 'systemctl'), `#!/bin/sh\necho "systemctl $*" >> "${log}"\n`);
  chmodSync(path.join(stubs, 'systemctl'), 0o755);
  const health = createServer((_request, response) => {
    const current = path.join(opt, 'current', 'HEALTH');
    const ok = existsSync(current) && readFileSync(current, 'utf8') === 'ok';
    response.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
    response.end(JSON.stringify(ok ? { status: 'ok' } : { error: 'not_ready' }));
  });
  await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
  after(() => health.close());
  const listen = `127.0.0.1:${(health.address() as AddressInfo).port}`;
  const db = await createTestDatabase();
  const configFile = path.join(base, 'gatehouse.toml');
  const releases = path.join(base, 'releases');
  mkdirSync(releases);
  const env = { ...process.env, PATH: `${stubs}:${process.env.PATH}`, STUB_LOG: log };
  const options = {
    from: releases,
    root,
    arch: ARCH,
    configFile,
    sql: db.sql,
    healthUrl: `http://${listen}/health/ready`,
    healthTimeoutMs: 1500,
    env,
  };
  const calls = () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const current = () => readlinkSync(path.join(opt, 'current'));
  return { root, opt, releases, options, calls, current, db, env, configFile, listen };
}

/** A configuration for the CLI runs: the listener is the readiness endpoint served here. */
function writeConfig(h: Awaited<ReturnType<typeof host>>) {
  const secrets = path.join(path.dirname(h.configFile), 'secrets');
  writeFileSync(
    h.configFile,
    `[server]\nissuer = "http://localhost:8080"\nlisten = "${h.listen}"\n[secrets]\ndir = "${secrets}"\n` +
      `[data]\ndir = "${path.join(path.dirname(h.configFile), 'data')}"\n[database]\nurl = "${h.db.url}"\n` +
      '[organization]\nid = "acme"\nname = "Acme"\nowner_subject = "owner@acme.test"\n',
  );
}

describe('gatehouse update and upgrade', () => {
  test('update installs the newest release of the channel beside the old one, migrates with it, switches and restarts', async () => {
    const h = await host();
    publish(h.releases, { version: '1.1.0', channel: 'stable' });
    const result = await upgrade({ ...h.options, channel: null });
    assert.deepEqual(result, {
      outcome: 'upgraded',
      from: '1.0.0',
      to: '1.1.0',
      channel: 'stable',
      migrated: 'No pending migrations.',
    });
    assert.equal(h.current(), '1.1.0');
    assert.ok(existsSync(path.join(h.opt, '1.0.0')), 'the previous release stays for a rollback');
    assert.deepEqual(h.calls(), [
      `gatehouse 1.1.0 migrate --config ${h.configFile}`,
      // reset-failed first: systemd's start limit counts every start and must never refuse an update's.
      'systemctl reset-failed gatehouse.service',
      'systemctl restart gatehouse.service',
    ]);

    const again = await upgrade({ ...h.options, channel: null });
    assert.deepEqual(again, { outcome: 'current', version: '1.1.0', channel: 'stable' });
    assert.equal(h.calls().length, 3, 'nothing more was run');
  });

  test('a release that does not come back healthy is rolled back to the previous one', async () => {
    const h = await host();
    publish(h.releases, { version: '1.1.0', channel: 'stable', health: 'broken' });
    await assert.rejects(
      upgrade({
        ...h.options,
        channel: null,
        env: { ...h.env, FAKE_MIGRATE_OUTPUT: 'Applied: 0099_later.sql' },
        backupFirst: async () => '/var/backups/before.tar.gz',
      }),
      /^OperationRefused: 1\.1\.0 did not come back healthy \(no \{"status":"ok"\} from http:\/\/127\.0\.0\.1:\d+\/health\/ready within 1\.5 s\); current points at 1\.0\.0 again, which is healthy\. 1\.1\.0 applied migrations \(Applied: 0099_later\.sql\); if 1\.0\.0 refuses them, stop it and gatehouse restore \/var\/backups\/before\.tar\.gz$/,
    );
    assert.equal(h.current(), '1.0.0');
    assert.deepEqual(h.calls().slice(1), [
      'systemctl reset-failed gatehouse.service',
      'systemctl restart gatehouse.service',
      'systemctl reset-failed gatehouse.service',
      'systemctl restart gatehouse.service',
    ]);
  });

  test('a bundle that does not match SHA256SUMS is refused before anything is unpacked', async () => {
    const h = await host();
    const bundle = publish(h.releases, { version: '1.1.0', channel: 'stable' });
    appendFileSync(bundle, 'tampered');
    await assert.rejects(
      upgrade({ ...h.options, channel: null }),
      /checksum mismatch for gatehouse-1\.1\.0-linux-(x64|arm64)\.tar\.gz \(SHA256SUMS says [0-9a-f]{64}, the file is [0-9a-f]{64}\); nothing was installed/,
    );
    assert.equal(existsSync(path.join(h.opt, '1.1.0')), false);
    assert.deepEqual(h.calls(), []);
  });

  test('a downgrade whose schema is older than the database is refused; upgrade --channel records the channel', async () => {
    const h = await host('1.2.0-rc1');
    publish(h.releases, { version: '1.1.0', channel: 'stable', migrations: ALL_MIGRATIONS.slice(0, -1) });
    const newest = readMigrations().at(-1)?.file.replace('.sql', '');
    await assert.rejects(
      upgrade({ ...h.options, channel: 'stable' }),
      new RegExp(
        `1\\.1\\.0's schema is older than the database's \\(the database has ${newest}, which 1\\.1\\.0 does not know\\); nothing was changed`,
      ),
    );
    assert.equal(h.current(), '1.2.0-rc1');
    assert.equal(existsSync(path.join(h.opt, '1.1.0')), false);
    assert.equal(existsSync(path.join(h.opt, '.1.1.0.new')), false);
    assert.deepEqual(h.calls(), []);

    publish(h.releases, { version: '1.2.0', channel: 'stable' });
    const moved = await upgrade({ ...h.options, channel: 'stable' });
    assert.equal(moved.outcome, 'upgraded');
    assert.equal(readFileSync(path.join(h.opt, 'channel'), 'utf8'), 'stable\n');
  });

  test('the CLI refuses an unknown channel and a missing location, and runs an update end to end', async () => {
    const h = await host();
    const bad = await runCli(['upgrade', '--channel', 'beta', '--from', h.releases]);
    assert.equal(bad.code, 64);
    assert.equal(
      bad.stderr,
      "gatehouse upgrade: option '--channel <CHANNEL>' argument 'beta' is invalid. Allowed choices are stable, rc.\n" +
        '(`gatehouse upgrade --help` lists its options)\n',
    );
    const noChannel = await runCli(['upgrade', '--from', h.releases]);
    assert.equal(noChannel.code, 64);
    assert.match(noChannel.stderr, /^gatehouse upgrade: required option '--channel <CHANNEL>' not specified\n/);
    const noFrom = await runCli(['update'], { env: { GATEHOUSE_RELEASES: '' } });
    assert.equal(noFrom.code, 64);
    assert.equal(
      noFrom.stderr,
      'gatehouse update: no release location: pass --from URL|DIR (or set GATEHOUSE_RELEASES)\n',
    );

    writeConfig(h);
    publish(h.releases, { version: '1.1.0', channel: 'stable' });
    const missing = await runCli([
      'update',
      ...['--from', path.join(h.releases, 'nowhere'), '--root', h.root, '--config', h.configFile],
    ]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^gatehouse update: release location .*nowhere is not a directory\n$/);
    const done = await runCli(['update', '--from', h.releases, '--root', h.root, '--config', h.configFile], {
      env: { PATH: h.env.PATH, STUB_LOG: h.env.STUB_LOG },
    });
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /^Verified gatehouse-1\.1\.0-linux-(x64|arm64)\.tar\.gz \([0-9a-f]{64}\)\n/);
    assert.match(done.stdout, /Gatehouse 1\.0\.0 -> 1\.1\.0 \(stable channel\): restarted and healthy\.\n$/);
    const backup = /\nBacked up the database, configuration and secrets to (\S+before-update-\S+\.tar\.gz)\n/.exec(
      done.stdout,
    )?.[1];
    assert.ok(backup && existsSync(backup) && existsSync(`${backup}.sha256`), done.stdout);
    assert.ok(backup.startsWith(path.join(path.dirname(h.configFile), 'data', 'backups')));
    assert.equal(h.current(), '1.1.0');
  });

  test('update downloads from an https:// location it can verify, and refuses one it cannot', async () => {
    const h = await host();
    writeConfig(h);
    publish(h.releases, { version: '1.1.0', channel: 'stable' });
    const certificate = await makeCertificate(scratchDir('gatehouse-update-tls-'));
    const server = createHttpsServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
      const relative = path.normalize(decodeURIComponent(request.url ?? '/')).replace(/^\/releases\//, '');
      const file = path.join(h.releases, relative);
      if (relative.startsWith('/') || !file.startsWith(`${h.releases}/`) || !existsSync(file))
        return response.writeHead(404).end();
      response.end(readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    const from = `https://localhost:${(server.address() as AddressInfo).port}/releases`;
    const update = (env: NodeJS.ProcessEnv) =>
      runCli(['update', '--from', from, '--root', h.root, '--no-backup', '--config', h.configFile], {
        env: { PATH: h.env.PATH, STUB_LOG: h.env.STUB_LOG, ...env },
      });
    const untrusted = await update({});
    assert.equal(untrusted.code, 1);
    assert.match(
      untrusted.stderr,
      new RegExp(
        `^gatehouse update: cannot download ${from}/stable/LATEST: fetch failed \\(self-signed certificate.*\\)\n$`,
      ),
    );
    assert.equal(h.current(), '1.0.0');
    const trusted = await update({ NODE_EXTRA_CA_CERTS: certificate.caFile });
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.equal(h.current(), '1.1.0');
  });
});
