// The operator's whole life with Gatehouse, under a real systemd: a Debian 13 booted by systemd-nspawn
// (booted-debian.ts), the release bundle of `npm run release` installed by the real packaging/install.sh, the hardened
// unit running the service as `gatehouse` against the host's PostgreSQL (a database of its own), and only the
// documented commands (docs/operations.md "The lifecycle, as the system tests run it"). Runs as root only: CI runs it
// (`npm run test:system`); it fails, never skips, elsewhere. The steps build on each other, in order.
import assert from 'node:assert/strict';
import type { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/haproxy.ts';
import { type BootedDebian, bootDebian, type Result } from './booted-debian.ts';
import { startPebbleWithDns } from './pebble.ts';
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
/** The database the second restore moves the service to. */
let otherDatabase: TestDatabase;
let releases: Releases;
let port: number;
let scratch: string;

const sh = (script: string) => debian.run(['sh', '-c', script]);
/** A gatehouse command inside; when it fails, the service's last journal lines come with its output. */
const gatehouse = async (...args: string[]) => {
  const result = await debian.run(['gatehouse', ...args]);
  if (result.code === 0) return result;
  const journal = await debian.run(['journalctl', '--unit=gatehouse', '--lines=40', '--no-pager', '--output=cat']);
  return { ...result, stderr: `${result.stderr}\n--- journalctl -u gatehouse:\n${journal.stdout}` };
};
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

/** Waits (polling, at most `ms`) until `probe` returns true. */
async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The certificate the listener serves to a client asking for the issuer's host, verified against `ca`. */
async function servedCertificate(ca: string): Promise<X509Certificate> {
  const socket = connect({ host: '127.0.0.1', port, servername: 'id.gatehouse.test', ca });
  try {
    await once(socket, 'secureConnect');
    const served = socket.getPeerX509Certificate();
    assert.ok(served, 'no certificate served');
    return served;
  } finally {
    socket.destroy();
  }
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
    otherDatabase = await createTestDatabase({ migrated: false, autoDrop: false });
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
    await otherDatabase?.drop();
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
    // The root has Debian's libjemalloc2 (rootfs-packages), so the unit gets the allocator's drop-in.
    assert.match(install.stdout, /Allocating with jemalloc \(\/usr\/lib\/x86_64-linux-gnu\/libjemalloc\.so\.2\)/);
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
    // The drop-in's LD_PRELOAD reached the process under the unit's hardening: jemalloc is mapped into it.
    const maps = ok(await debian.run(['grep', '-c', 'libjemalloc.so.2', `/proc/${pid}/maps`])).stdout.trim();
    assert.ok(Number(maps) > 0, `libjemalloc.so.2 is not mapped into ${pid}`);
    assert.equal(await unit('ProtectSystem'), 'strict');
    assert.equal(await unit('NoNewPrivileges'), 'yes');
    assert.equal(await unit('CapabilityBoundingSet'), '');
    // The start limit as systemd read it from [Unit]; 64 and 78 never restarted.
    assert.equal(await unit('StartLimitBurst'), '10');
    assert.equal(await unit('StartLimitIntervalUSec'), '1min');
    assert.match(await unit('RestartPreventExitStatus'), /^64 78$/);
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

  test('behind a proxy: server.trusted_proxy = true and two workers, and the CLI still finds it ready', async () => {
    const edit = ok(
      await gatehouse('config', 'main', '--set', 'server.trusted_proxy=true', '--set', 'server.workers=2'),
    );
    assert.match(edit.stdout, /Restarted gatehouse\.service: ready at /);
    assert.doesNotMatch(edit.stdout, /Restored the previous configuration/);
    // The rule holds for everyone but the CLI's own probe: without one X-Forwarded-For address, 400.
    const bare = await fetch(`http://127.0.0.1:${port}/health/ready`);
    assert.equal(bare.status, 400);
    assert.deepEqual(await ready(), { status: 'ok' });
    assert.match(
      ok(await gatehouse('status')).stdout,
      new RegExp(`^listener: +http://127\\.0\\.0\\.1:${port} ready$`, 'm'),
    );
    assert.match(ok(await gatehouse('logs', '--lines', '400')).stdout, /workers: 2 processes \(server\.workers\)/);
    // The launcher, the supervisor and its two workers, all in the unit's control group and all `gatehouse`.
    const group = await unit('ControlGroup');
    const pids = ok(await debian.run(['cat', `/sys/fs/cgroup${group}/cgroup.procs`]))
      .stdout.trim()
      .split('\n');
    assert.ok(pids.length >= 3, `processes of the unit: ${pids.join(' ')}`);
    for (const pid of pids)
      assert.equal(ok(await debian.run(['ps', '-o', 'user=', '-p', pid])).stdout.trim(), 'gatehouse');
  });

  test('/metrics reports the node: counters summed over both workers, never going back between scrapes', async () => {
    const token = ok(await debian.run(['cat', '/etc/gatehouse/secrets/metrics-bearer.token'])).stdout.trim();
    // Ten requests, each on a connection of its own (curl runs once per request), spread over the two workers.
    ok(
      await sh(
        `for i in 1 2 3 4 5 6 7 8 9 10; do curl -fsS -o /dev/null -H 'X-Forwarded-For: 203.0.113.7' http://127.0.0.1:${port}/.well-known/openid-configuration || exit 1; done`,
      ),
    );
    const discoveryCount = async () => {
      const answer = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.7' },
      });
      assert.equal(answer.status, 200);
      const text = await answer.text();
      return text
        .split('\n')
        .filter((line) =>
          /^gatehouse_http_request_duration_seconds_count\{.*route="\/\.well-known\/openid-configuration".*\} /.test(
            line,
          ),
        )
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    };
    // Every scrape (each a new connection, reaching either worker) sees all ten.
    for (let scrape = 0; scrape < 6; scrape += 1) assert.equal(await discoveryCount(), 10, `scrape ${scrape + 1}`);
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

  test("systemd's start limit stops a restart loop, and gatehouse start still starts it (reset-failed first)", async () => {
    // Eleven starts within the minute: systemd refuses the last ones (StartLimitBurst=10 per 60 s).
    const loop = await sh('for i in $(seq 1 12); do systemctl restart gatehouse || exit 0; done; exit 1');
    assert.equal(loop.code, 0, 'systemd refused no restart: is the start limit in the unit?');
    assert.equal(await unit('Result'), 'start-limit-hit');
    assert.match(ok(await gatehouse('start')).stdout, /Started gatehouse\.service: ready at /);
    assert.deepEqual(await ready(), { status: 'ok' });
  });

  test('backup writes a 0600 archive and its checksum beside the running service', async () => {
    ok(await gatehouse('backup', '/root/gatehouse-backup.tar.gz'));
    assert.equal(await ownership('/root/gatehouse-backup.tar.gz'), 'root:root 600');
    ok(await sh('cd /root && sha256sum --check gatehouse-backup.tar.gz.sha256'));
  });

  test('restore puts the backup back into the same database, and into another one, which the service then uses', async () => {
    // Refused while the service answers.
    const running = await gatehouse('restore', '/root/gatehouse-backup.tar.gz');
    assert.equal(running.code, 1);
    assert.match(running.stderr, /the service is running/);
    ok(await gatehouse('stop'));
    const same = ok(await gatehouse('restore', '/root/gatehouse-backup.tar.gz'));
    assert.match(same.stdout, /^Checksum verified/m);
    assert.match(same.stdout, /^database\.url: kept /m);
    assert.equal(await ownership(CONFIG), 'root:gatehouse 640');
    assert.match(ok(await gatehouse('start')).stdout, /Started gatehouse\.service: ready at /);
    ok(await gatehouse('stop'));
    const other = ok(await gatehouse('restore', '/root/gatehouse-backup.tar.gz', '--database-url', otherDatabase.url));
    assert.match(
      other.stdout,
      new RegExp(`^database\\.url: set to .*${otherDatabase.name}, the database restored into`, 'm'),
    );
    assert.equal(await ownership(CONFIG), 'root:gatehouse 640');
    assert.match(ok(await gatehouse('start')).stdout, /Started gatehouse\.service: ready at /);
    assert.match(ok(await gatehouse('info')).stdout, /^organization: acme \(Acme\)$/m);
    const [row] = await otherDatabase.sql<{ n: number }[]>`select count(*)::int as n from organizations`;
    assert.equal(row?.n, 1, 'the restored rows are in the other database');
  });

  test('update to a newer release, a refused downgrade, and the return to the previous release when one never becomes ready', async () => {
    const updated = ok(await gatehouse('update', '--from', '/srv/releases/newer'));
    assert.match(
      updated.stdout,
      new RegExp(
        `Gatehouse ${releases.current.replaceAll('.', '\\.')} -> ${releases.newer.replaceAll('.', '\\.')} \\(rc channel\\): restarted and healthy`,
      ),
    );
    assert.match(
      ok(await gatehouse('status')).stdout,
      new RegExp(`^version: +${releases.newer.replaceAll('.', '\\.')}$`, 'm'),
    );
    const [applied] = await otherDatabase.sql<{ n: number }[]>`
      select count(*)::int as n from schema_migrations
      where lpad(version::text, 4, '0') || '_' || name = ${releases.newerMigration}`;
    assert.equal(applied?.n, 1, 'the newer release migrated the database');

    const downgrade = await gatehouse('update', '--from', '/srv/releases/current');
    assert.equal(downgrade.code, 1, downgrade.stdout + downgrade.stderr);
    assert.match(downgrade.stderr, /older than the database/);

    const broken = await gatehouse('update', '--from', '/srv/releases/broken', '--health-timeout', '15');
    assert.equal(broken.code, 1, broken.stdout + broken.stderr);
    assert.match(
      broken.stderr,
      new RegExp(
        `did not come back healthy .*current points at ${releases.newer.replaceAll('.', '\\.')} again, which is healthy`,
      ),
    );
    assert.match(
      ok(await gatehouse('status')).stdout,
      new RegExp(`^version: +${releases.newer.replaceAll('.', '\\.')}$`, 'm'),
    );
    assert.deepEqual(await ready(), { status: 'ok' });
  });

  test('tls.mode acme against pebble under the unit: the first order, status naming the certificate, a renewal', async () => {
    // pebble on the host's loopback, validating HTTP-01 at id.gatehouse.test (its DNS answers 127.0.0.1) on the port
    // of the service's challenge listener; its certificates last 20 days, so the default 30 renewal days are due.
    const challengePort = await freePort();
    const pebble = await startPebbleWithDns(path.join(scratch, 'pebble'), challengePort, 20 * 86_400);
    copyFileSync(pebble.caFile, path.join(debian.root, 'etc/gatehouse/pebble-ca.pem'));
    ok(await sh('chown root:gatehouse /etc/gatehouse/pebble-ca.pem && chmod 0640 /etc/gatehouse/pebble-ca.pem'));
    // First with an authority that does not answer: no certificate, so the service exits 69 with one line saying so
    // (systemd restarts it: it may come back), and the edit is rolled back.
    const closed = await freePort();
    const unreachable = await gatehouse(
      ...['config', 'main', '--timeout', '8', '--set', 'tls.mode=acme'],
      ...['--set', `tls.acme_directory_url=https://localhost:${closed}/dir`],
      ...[
        '--set',
        'tls.acme_ca_file=/etc/gatehouse/pebble-ca.pem',
        '--set',
        `tls.acme_http_listen=127.0.0.1:${challengePort}`,
      ],
    );
    assert.equal(unreachable.code, 1, unreachable.stdout);
    assert.match(unreachable.stdout, /Restarted gatehouse\.service on the previous configuration: ready\./);
    const journal = ok(await debian.run(['journalctl', '--unit=gatehouse', '--no-pager', '--output=cat']));
    assert.match(
      journal.stdout,
      /gatehouse serve: no TLS certificate for id\.gatehouse\.test and the ACME authority is unreachable \(.*ECONNREFUSED.*\); exiting with 69, systemd tries again/,
    );
    assert.match(journal.stdout, /status=69\/UNAVAILABLE|code=exited, status=69/);
    const edit = ok(
      await gatehouse(
        ...['config', 'main', '--set', 'tls.mode=acme', '--set', `tls.acme_directory_url=${pebble.directoryUrl}`],
        ...[
          '--set',
          'tls.acme_ca_file=/etc/gatehouse/pebble-ca.pem',
          '--set',
          `tls.acme_http_listen=127.0.0.1:${challengePort}`,
        ],
      ),
    );
    assert.match(
      edit.stdout,
      new RegExp(`Restarted gatehouse\\.service: ready at https://127\\.0\\.0\\.1:${port}/health/ready`),
    );
    assert.equal(await ownership(CONFIG), 'root:gatehouse 640');
    // Written where the unit lets the service write, never into the read-only secrets directory.
    assert.equal(await ownership('/var/lib/gatehouse/tls/acme-certificate.key'), 'gatehouse:gatehouse 600');
    const root = await pebble.root();
    const first = await servedCertificate(root);
    assert.match(first.subjectAltName ?? '', /DNS:id\.gatehouse\.test/);
    const status = ok(await gatehouse('status', '--full'));
    assert.match(status.stdout, /^tls: +acme: .*id\.gatehouse\.test.* issued by .*Pebble/m);
    assert.match(status.stdout, new RegExp(`^listener: +https://127\\.0\\.0\\.1:${port} ready$`, 'm'));
    // SIGHUP checks the renewal, which is due: a new certificate is served without a restart.
    const pid = await unit('MainPID');
    ok(await debian.run(['systemctl', 'kill', '--signal=HUP', 'gatehouse']));
    await until(
      'the renewed certificate',
      60_000,
      async () => (await servedCertificate(root)).serialNumber !== first.serialNumber,
    );
    assert.equal(await unit('MainPID'), pid, 'renewed without a restart');
    await pebble.stop();
  });

  test('install.sh run again changes nothing it should keep and leaves the service running', async () => {
    const before = ok(await sh(`sha256sum ${CONFIG} /etc/gatehouse/secrets/*`)).stdout;
    const again = ok(
      await debian.run(['sh', '/srv/releases/newer/install.sh', '--from', '/srv/releases/newer', '--channel', 'rc']),
    );
    assert.match(again.stdout, /^Kept the configuration \/etc\/gatehouse\/gatehouse\.toml/m);
    assert.match(again.stdout, /Started gatehouse\.service/);
    assert.equal(ok(await sh(`sha256sum ${CONFIG} /etc/gatehouse/secrets/*`)).stdout, before);
    assert.equal(await ownership(CONFIG), 'root:gatehouse 640');
    // install.sh restarts the unit and returns; the listener follows a moment later.
    await until('gatehouse status to say ready', 60_000, async () => (await gatehouse('status')).code === 0);
  });

  test('install.sh --uninstall removes the program and the unit and keeps the data; --purge removes the rest', async () => {
    const removed = ok(await debian.run(['sh', '/srv/releases/newer/install.sh', '--uninstall']));
    assert.match(removed.stdout, /^Removed gatehouse\.service, \/usr\/local\/bin\/gatehouse and \/opt\/gatehouse$/m);
    assert.equal(await unit('LoadState'), 'not-found');
    assert.equal((await debian.run(['systemctl', 'is-failed', 'gatehouse'])).stdout.trim(), 'inactive');
    await assert.rejects(fetch(`http://127.0.0.1:${port}/health/ready`));
    assert.notEqual((await debian.run(['test', '-e', '/opt/gatehouse'])).code, 0);
    assert.notEqual((await debian.run(['test', '-e', '/usr/local/bin/gatehouse'])).code, 0);
    assert.equal(await ownership(CONFIG), 'root:gatehouse 640');
    ok(await debian.run(['test', '-d', '/var/lib/gatehouse/tls']));
    ok(await debian.run(['id', 'gatehouse']));

    const purged = ok(await debian.run(['sh', '/srv/releases/newer/install.sh', '--uninstall', '--purge']));
    assert.match(purged.stdout, /The database was left alone\./);
    for (const gone of ['/etc/gatehouse', '/var/lib/gatehouse', '/var/log/gatehouse'])
      assert.notEqual((await debian.run(['test', '-e', gone])).code, 0, gone);
    assert.notEqual((await debian.run(['id', 'gatehouse'])).code, 0);
  });
});
