// The operator's whole life with Gatehouse, under a real systemd: a Debian 13 booted by systemd-nspawn
// (booted-debian.ts), the release bundle of `npm run release` installed by the real packaging/install.sh, the hardened
// unit running the service as `gatehouse` against the host's PostgreSQL (a database of its own), and only the
// documented commands (docs/operations.md "The lifecycle, as the system tests run it"). Runs as root only: CI runs it
// (`npm run test:system`); it fails, never skips, elsewhere. The steps build on each other, in order.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/haproxy.ts';
import { type BootedDebian, bootDebian, type Result } from './booted-debian.ts';
import { prepareReleases, type Releases } from './releases.ts';

const SETUP = [
  '--domain',
  'id.gatehouse.test',
  '--org-name',
  'Acme',
  '--org-id',
  'acme',
  '--owner',
  'owner@gatehouse.test',
];
const CONFIG = '/etc/gatehouse/gatehouse.toml';

let debian: BootedDebian;
let database: TestDatabase;
let releases: Releases;
let port: number;
let scratch: string;

const sh = (script: string) => debian.run(['sh', '-c', script]);
const gatehouse = (...args: string[]) => debian.run(['gatehouse', ...args]);
const ok = (result: Result) => {
  assert.equal(result.code, 0, `exit ${result.code}\n${result.stdout}\n${result.stderr}`);
  return result;
};

/** What an operator (or a proxy that sets X-Forwarded-For) gets from /health/ready on the host's loopback. */
async function ready(): Promise<unknown> {
  const answer = await fetch(`http://127.0.0.1:${port}/health/ready`, {
    headers: { 'x-forwarded-for': '203.0.113.7' },
  });
  return answer.json();
}

async function unit(property: string): Promise<string> {
  return ok(
    await debian.run(['systemctl', 'show', '--value', `--property=${property}`, 'gatehouse.service']),
  ).stdout.trim();
}

/** owner:group mode of a file inside, as `stat` prints them. */
async function ownership(file: string): Promise<string> {
  return ok(await debian.run(['stat', '-c', '%U:%G %a', file])).stdout.trim();
}

before(
  async () => {
    scratch = mkdtempSync('/var/tmp/gatehouse-system-');
    releases = await prepareReleases(path.join(scratch, 'releases'), (line) => process.stderr.write(`${line}\n`));
    database = await createTestDatabase({ migrated: false, autoDrop: false });
    port = await freePort();
    debian = await bootDebian({
      scratch,
      name: 'gatehouse-system',
      binds: [{ host: releases.dir, guest: '/srv/releases', readOnly: true }],
      log: (line) => process.stderr.write(`${line}\n`),
    });
    // A cold cache builds the Debian root first (about 90 s), and the newer release is built on every run.
  },
  { timeout: 600_000 },
);

after(
  async () => {
    await debian?.stop();
    await database?.drop();
    rmSync(scratch, { recursive: true, force: true });
  },
  { timeout: 120_000 },
);

describe('the installed service under systemd', () => {
  test('install.sh --from a local release installs the bundle, runs setup and starts the unit', async () => {
    const install = ok(
      await debian.run([
        'sh',
        '/srv/releases/current/install.sh',
        ...['--from', '/srv/releases/current', '--channel', 'rc', '--'],
        ...SETUP,
        ...['--database-url', database.url, '--tls', 'external', '--listen', `127.0.0.1:${port}`],
      ]),
    );
    assert.match(install.stdout, new RegExp(`Verified gatehouse-${releases.current}-linux-x64\\.tar\\.gz`));
    assert.match(install.stdout, /Created organization acme with initial owner owner@gatehouse\.test/);
    assert.match(install.stdout, /Started gatehouse\.service/);
    assert.equal(await ownership(CONFIG), 'root:gatehouse 640');
    assert.equal(await ownership('/etc/gatehouse'), 'root:gatehouse 750');
    const secrets = ok(await sh('stat -c "%U %a %n" /etc/gatehouse/secrets/*'))
      .stdout.trim()
      .split('\n');
    for (const line of secrets) assert.match(line, /^gatehouse 600 /);
  });

  test('the unit is active, runs as gatehouse under its hardening with /etc read-only to it, and is ready', async () => {
    ok(await debian.run(['gatehouse', 'start']));
    assert.equal((await debian.run(['systemctl', 'is-active', 'gatehouse'])).stdout.trim(), 'active');
    assert.equal((await debian.run(['systemctl', 'is-enabled', 'gatehouse'])).stdout.trim(), 'enabled');
    const pid = await unit('MainPID');
    const user = ok(await debian.run(['ps', '-o', 'user=', '-p', pid])).stdout.trim();
    assert.equal(user, 'gatehouse');
    assert.equal(await unit('ProtectSystem'), 'strict');
    assert.equal(await unit('NoNewPrivileges'), 'yes');
    assert.equal(await unit('CapabilityBoundingSet'), '');
    // In the service's own mount namespace: / and /etc are read-only, the data directory is not.
    const mounts = ok(
      await debian.run(['nsenter', '--target', pid, '--mount', 'findmnt', '-no', 'OPTIONS', '-T', '/etc/gatehouse']),
    ).stdout;
    assert.match(mounts, /(^|,)ro(,|$)/);
    const data = ok(
      await debian.run([
        'nsenter',
        '--target',
        pid,
        '--mount',
        'findmnt',
        '-no',
        'OPTIONS',
        '-T',
        '/var/lib/gatehouse',
      ]),
    ).stdout;
    assert.match(data, /(^|,)rw(,|$)/);
    assert.deepEqual(await ready(), { status: 'ok' });
  });

  test('status, doctor, info and logs (from the journal) report the running service', async () => {
    const status = ok(await gatehouse('status'));
    assert.match(status.stdout, new RegExp(`^version: +${releases.current.replaceAll('.', '\\.')}$`, 'm'));
    assert.match(status.stdout, /^service: +active \(running\) \[gatehouse\.service\]/m);
    assert.match(status.stdout, new RegExp(`^listener: +http://127\\.0\\.0\\.1:${port} ready$`, 'm'));
    const doctor = ok(await gatehouse('doctor'));
    assert.match(doctor.stdout, /^ok +database /m);
    assert.match(doctor.stdout, /^ok +migrations all \d+ applied$/m);
    assert.match(ok(await gatehouse('info')).stdout, /^organization: acme \(Acme\)$/m);
    const logs = ok(await gatehouse('logs', '--lines', '200')).stdout;
    assert.match(logs, /"msg":"listening"/);
  });

  test('config main, config providers (redirect and web3) and config delivery restart it healthy and keep the file root:gatehouse 0640 with its comments', async () => {
    const edits: [string, string[]][] = [
      ['main', ['--set', 'server.shutdown_timeout_seconds=5']],
      ['providers', ['--provider', 'ethereum', '--enable']],
      [
        'delivery',
        ['--kind', 'webhook', '--from', 'id@gatehouse.test', '--webhook-url', 'https://hooks.gatehouse.test/deliver'],
      ],
    ];
    for (const [command, args] of edits) {
      const edit = ok(await gatehouse('config', command, ...args));
      assert.match(edit.stdout, /Restarted gatehouse\.service: ready at /, command);
      assert.equal(await ownership(CONFIG), 'root:gatehouse 640', command);
      const head = ok(await debian.run(['head', '-n', '1', CONFIG])).stdout;
      assert.match(
        head,
        /^# Gatehouse configuration, written by `gatehouse setup`/,
        `config ${command} kept the comment`,
      );
    }
    const redirect = ok(
      await sh(
        `echo s3cr3t | gatehouse config providers --provider github --client-id gh-1 --client-secret-stdin --enable`,
      ),
    );
    assert.match(
      redirect.stdout,
      /Register https:\/\/id\.gatehouse\.test\/auth\/federated\/callback at the provider\./,
    );
    assert.match(redirect.stdout, /Restarted gatehouse\.service: ready at /);
    assert.equal(await ownership('/etc/gatehouse/secrets/provider-github.secret'), 'gatehouse:gatehouse 600');
    assert.deepEqual(await ready(), { status: 'ok' });
  });

  test('stop, start and restart act on the unit', async () => {
    ok(await gatehouse('stop'));
    assert.equal((await debian.run(['systemctl', 'is-active', 'gatehouse'])).stdout.trim(), 'inactive');
    await assert.rejects(ready());
    assert.match(ok(await gatehouse('start')).stdout, /Started gatehouse\.service: ready at /);
    assert.match(ok(await gatehouse('restart')).stdout, /Restarted gatehouse\.service: ready at /);
    assert.deepEqual(await ready(), { status: 'ok' });
  });

  test('backup writes a 0600 archive and its checksum beside the running service', async () => {
    ok(await gatehouse('backup', '/root/gatehouse-backup.tar.gz'));
    assert.equal(await ownership('/root/gatehouse-backup.tar.gz'), 'root:root 600');
    ok(await sh('cd /root && sha256sum --check gatehouse-backup.tar.gz.sha256'));
  });
});
