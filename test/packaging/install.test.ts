import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { hostArch, INSTALLER, makeHost, makeRelease, runInstaller, SERVICE_UID } from './installer-harness.ts';

const mode = (file: string) => (statSync(file).mode & 0o7777).toString(8);

/** Everything under the scratch root, with type, mode and owner: what a re-run must leave unchanged. */
function snapshot(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name);
      const stat = lstatSync(file);
      const what = stat.isSymbolicLink() ? `-> ${readlinkSync(file)}` : stat.isFile() ? readFileSync(file, 'utf8') : '';
      return `${path.relative(root, file)} ${(stat.mode & 0o7777).toString(8)} ${stat.uid}:${stat.gid} ${what}`;
    })
    .sort();
}

describe('packaging/install.sh into a scratch root', () => {
  test('installs the verified bundle: version directory, current and command links, user, config, data, unit', () => {
    const host = makeHost();
    const release = makeRelease();
    const result = runInstaller(host, ['--from', release, '--', '--domain', 'id.example.org']);
    assert.equal(result.code, 0, result.stderr);
    const { root } = host;
    assert.match(result.stdout, /Verified gatehouse-1\.2\.0-linux-(x64|arm64)\.tar\.gz/);
    assert.equal(readlinkSync(path.join(root, 'opt/gatehouse/current')), '1.2.0');
    assert.equal(readlinkSync(path.join(root, 'usr/local/bin/gatehouse')), '/opt/gatehouse/current/bin/gatehouse');
    assert.equal(mode(path.join(root, 'opt/gatehouse/1.2.0/bin/gatehouse')), '755');
    assert.equal(statSync(path.join(root, 'opt/gatehouse/1.2.0/bin/gatehouse')).uid, 0);
    assert.match(readFileSync(path.join(root, 'etc/passwd'), 'utf8'), /^gatehouse:x:990:990:/m);
    const owned = (file: string, uid: number, gid: number, expected: string) => {
      const stat = statSync(path.join(root, file));
      assert.deepEqual([stat.uid, stat.gid, mode(path.join(root, file))], [uid, gid, expected], file);
    };
    owned('etc/gatehouse', 0, SERVICE_UID, '750');
    owned('etc/gatehouse/gatehouse.toml', 0, SERVICE_UID, '640');
    owned('etc/gatehouse/secrets', SERVICE_UID, SERVICE_UID, '700');
    owned('etc/gatehouse/secrets/token-signing.key', SERVICE_UID, SERVICE_UID, '600');
    owned('var/lib/gatehouse', SERVICE_UID, SERVICE_UID, '700');
    owned('var/log/gatehouse', SERVICE_UID, SERVICE_UID, '750');
    owned('etc/systemd/system/gatehouse.service', 0, 0, '644');
    assert.ok(existsSync(path.join(root, 'etc/gatehouse/gatehouse.toml.example')));
    assert.equal(existsSync(path.join(root, 'etc/systemd/system/gatehouse.service.d')), false);
    const etc = path.join(root, 'etc/gatehouse');
    assert.deepEqual(result.calls, [
      `useradd --root ${root} --system --user-group --home-dir /var/lib/gatehouse --no-create-home --shell /usr/sbin/nologin --comment Gatehouse identity provider gatehouse`,
      `gatehouse setup --config ${etc}/gatehouse.toml --secrets-dir ${etc}/secrets --data-dir ${root}/var/lib/gatehouse --domain id.example.org`,
      'systemctl daemon-reload',
      'systemctl enable gatehouse.service',
      'systemctl reset-failed gatehouse.service',
      'systemctl restart gatehouse.service',
    ]);
  });

  test('running it again changes nothing, creates no second user and restarts the service', () => {
    const host = makeHost();
    const release = makeRelease();
    assert.equal(runInstaller(host, ['--from', release]).code, 0);
    const before = snapshot(host.root);
    const again = runInstaller(host, ['--from', release]);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(snapshot(host.root), before);
    assert.ok(!again.calls.some((call) => call.startsWith('useradd')));
    // Without setup options the existing configuration is kept: setup would ask for --domain and the rest.
    assert.ok(!again.calls.some((call) => call.startsWith('gatehouse setup')), again.calls.join('\n'));
    assert.match(
      again.stdout,
      /^Kept the configuration \/etc\/gatehouse\/gatehouse\.toml \(setup runs only with options after --\)$/m,
    );
    assert.ok(again.calls.includes('systemctl restart gatehouse.service'));
  });

  test('a newer version goes beside the old one and current switches to it', () => {
    const host = makeHost();
    const release = makeRelease();
    assert.equal(runInstaller(host, ['--from', release]).code, 0);
    makeRelease(release, { version: '1.3.0' });
    assert.equal(runInstaller(host, ['--from', release, '--no-setup']).code, 0);
    assert.deepEqual(readdirSync(path.join(host.root, 'opt/gatehouse')).sort(), ['1.2.0', '1.3.0', 'current']);
    assert.equal(readlinkSync(path.join(host.root, 'opt/gatehouse/current')), '1.3.0');
  });

  test('--no-setup installs the files, enables the unit and starts nothing while there is no configuration', () => {
    const host = makeHost();
    const result = runInstaller(host, ['--from', makeRelease(), '--no-setup']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.calls.slice(1), ['systemctl daemon-reload', 'systemctl enable gatehouse.service']);
    assert.match(result.calls[0] ?? '', /^useradd /);
    assert.match(result.stdout, /Not started: no configuration yet/);
    assert.equal(existsSync(path.join(host.root, 'etc/gatehouse/gatehouse.toml')), false);
  });

  test('--channel rc takes the rc channel latest; --version pins one', () => {
    const release = makeRelease(undefined, { version: '1.2.0' });
    makeRelease(release, { version: '1.3.0-rc1', channel: 'rc' });
    const rcHost = makeHost();
    assert.equal(runInstaller(rcHost, ['--from', release, '--channel', 'rc', '--no-setup']).code, 0);
    assert.equal(readlinkSync(path.join(rcHost.root, 'opt/gatehouse/current')), '1.3.0-rc1');
    const pinned = makeHost();
    assert.equal(runInstaller(pinned, ['--from', release, '--version', '1.2.0', '--no-setup']).code, 0);
    assert.equal(readlinkSync(path.join(pinned.root, 'opt/gatehouse/current')), '1.2.0');
  });

  test('a port below 1024 gets the CAP_NET_BIND_SERVICE drop-in, and moving back above removes it', () => {
    const host = makeHost();
    const release = makeRelease();
    assert.equal(runInstaller(host, ['--from', release], { STUB_LISTEN: '0.0.0.0:443' }).code, 0);
    const dropIn = path.join(host.root, 'etc/systemd/system/gatehouse.service.d/privileged-port.conf');
    assert.equal(
      readFileSync(dropIn, 'utf8'),
      '# Written by install.sh: server.listen uses port 443, below 1024.\n[Service]\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE\nAmbientCapabilities=CAP_NET_BIND_SERVICE\n',
    );
    // Setup options after -- make it run setup again, which (the stub) writes the new port.
    const moved = runInstaller(host, ['--from', release, '--', '--domain', 'id.example.org'], {
      STUB_LISTEN: '127.0.0.1:8443',
    });
    assert.equal(moved.code, 0);
    assert.equal(existsSync(path.dirname(dropIn)), false);
  });

  test("with Debian's libjemalloc2 the unit gets the jemalloc drop-in; without it, glibc and a line saying so", () => {
    const host = makeHost();
    const release = makeRelease();
    const multiarch = hostArch() === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';
    const dropIn = path.join(host.root, 'etc/systemd/system/gatehouse.service.d/jemalloc.conf');
    const without = runInstaller(host, ['--from', release, '--no-setup']);
    assert.equal(without.code, 0, without.stderr);
    assert.match(
      without.stdout,
      /^Allocating with glibc's malloc: apt-get install libjemalloc2, then run this installer again/m,
    );
    assert.equal(existsSync(path.dirname(dropIn)), false);

    const library = path.join(host.root, 'usr/lib', multiarch, 'libjemalloc.so.2');
    mkdirSync(path.dirname(library), { recursive: true });
    writeFileSync(library, '');
    const withIt = runInstaller(host, ['--from', release, '--no-setup']);
    assert.equal(withIt.code, 0, withIt.stderr);
    assert.match(
      withIt.stdout,
      new RegExp(`^Allocating with jemalloc \\(/usr/lib/${multiarch}/libjemalloc\\.so\\.2\\)`, 'm'),
    );
    assert.equal(mode(dropIn), '644');
    const written = readFileSync(dropIn, 'utf8');
    assert.equal(
      written
        .split('\n')
        .filter((line) => !line.startsWith('#'))
        .join('\n'),
      `[Service]\nEnvironment=LD_PRELOAD=/usr/lib/${multiarch}/libjemalloc.so.2 MALLOC_CONF=narenas:1,background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\n`,
    );
    // The drop-in is there when the unit is reloaded (the stub records it), so the restart that follows runs on it.
    assert.deepEqual(withIt.calls.slice(-3), [
      'systemctl daemon-reload',
      '(jemalloc.conf present)',
      'systemctl enable gatehouse.service',
    ]);
    assert.equal(existsSync(`${dropIn}.new`), false);

    // A release from before the drop-in (installed with --version, say) leaves the allocator as it was.
    const older = makeRelease(undefined, { version: '1.1.0', withoutJemallocConf: true });
    const rolledBack = runInstaller(host, ['--from', older, '--version', '1.1.0', '--no-setup']);
    assert.equal(rolledBack.code, 0, rolledBack.stderr);
    assert.match(rolledBack.stdout, /^This release has no jemalloc\.conf: the allocator is left as it was$/m);
    assert.equal(readFileSync(dropIn, 'utf8'), written);
    assert.deepEqual(rolledBack.calls.slice(-3), [
      'systemctl daemon-reload',
      '(jemalloc.conf present)',
      'systemctl enable gatehouse.service',
    ]);

    rmSync(library);
    const gone = runInstaller(host, ['--from', release, '--no-setup']);
    assert.equal(gone.code, 0, gone.stderr);
    assert.match(gone.stdout, /^Allocating with glibc's malloc/m);
    assert.equal(existsSync(path.dirname(dropIn)), false);
  });

  test('a failing setup fails the installer with what to do next, and starts nothing', () => {
    const host = makeHost();
    const result = runInstaller(host, ['--from', makeRelease()], { STUB_SETUP_EXIT: '78' });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /gatehouse setup failed \(see above\)\. The files are installed: fix the cause/);
    assert.ok(!result.calls.some((call) => call.startsWith('systemctl')));
  });
});

describe('packaging/install.sh --uninstall', () => {
  const installed = () => {
    const host = makeHost();
    assert.equal(runInstaller(host, ['--from', makeRelease()], { STUB_LISTEN: '0.0.0.0:443' }).code, 0);
    return host;
  };
  const there = (host: { root: string }, file: string) => existsSync(path.join(host.root, file));

  test('stops and disables the service and removes the program, keeping configuration, secrets, data, logs and user', () => {
    const host = installed();
    const result = runInstaller(host, ['--uninstall']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.calls, [
      'systemctl disable --now gatehouse.service',
      'systemctl daemon-reload',
      'systemctl reset-failed gatehouse.service',
    ]);
    for (const gone of [
      'opt/gatehouse',
      'usr/local/bin/gatehouse',
      'etc/systemd/system/gatehouse.service',
      'etc/systemd/system/gatehouse.service.d',
    ])
      assert.equal(there(host, gone), false, gone);
    for (const kept of ['etc/gatehouse/gatehouse.toml', 'etc/gatehouse/secrets/token-signing.key', 'var/lib/gatehouse'])
      assert.equal(there(host, kept), true, kept);
    assert.match(readFileSync(path.join(host.root, 'etc/passwd'), 'utf8'), /^gatehouse:/m);
    assert.equal(
      result.stdout,
      'Removed gatehouse.service, /usr/local/bin/gatehouse and /opt/gatehouse\n' +
        'Kept /etc/gatehouse (configuration, secrets), /var/lib/gatehouse, /var/log/gatehouse and the user gatehouse: --purge removes them\n',
    );
    // Installing again finds the configuration and starts on it.
    const again = runInstaller(host, ['--from', makeRelease(), '--no-setup']);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.calls.includes('systemctl restart gatehouse.service'), again.calls.join('\n'));
  });

  test('--purge also removes configuration, secrets, data, logs and the user, and says the database is left', () => {
    const host = installed();
    const result = runInstaller(host, ['--uninstall', '--purge']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.calls, [
      'systemctl disable --now gatehouse.service',
      'systemctl daemon-reload',
      'systemctl reset-failed gatehouse.service',
      `userdel --root ${host.root} gatehouse`,
    ]);
    for (const gone of ['opt/gatehouse', 'etc/gatehouse', 'var/lib/gatehouse', 'var/log/gatehouse'])
      assert.equal(there(host, gone), false, gone);
    assert.doesNotMatch(readFileSync(path.join(host.root, 'etc/passwd'), 'utf8'), /^gatehouse:/m);
    assert.match(
      result.stdout,
      /\nPurged \/etc\/gatehouse, .* and the user gatehouse\. The database was left alone\.\n$/,
    );
  });

  test('without systemd it removes the files and calls no systemctl; --purge alone is refused', () => {
    const host = installed();
    const container = makeHost(undefined, { systemd: false });
    // The same files, on a host where systemd does not run.
    execFileSync('cp', ['-a', `${host.root}/.`, container.root]);
    execFileSync('rm', ['-rf', path.join(container.root, 'run/systemd')]);
    const result = runInstaller(container, ['--uninstall']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.calls, []);
    assert.equal(there(container, 'opt/gatehouse'), false);
    assert.equal(there(container, 'etc/systemd/system/gatehouse.service'), false);
    const purgeOnly = runInstaller(host, ['--purge']);
    assert.equal(purgeOnly.code, 1);
    assert.equal(purgeOnly.stderr, 'install.sh: --purge goes with --uninstall\n');
    assert.equal(there(host, 'opt/gatehouse'), true);
  });
});

describe('packaging/install.sh refusals (nothing is installed)', () => {
  const refused = (
    args: string[],
    options: { osRelease?: string; env?: NodeJS.ProcessEnv; systemd?: boolean } = {},
  ) => {
    const host = makeHost(options.osRelease, { systemd: options.systemd });
    const result = runInstaller(host, args, options.env);
    assert.equal(result.code, 1);
    assert.equal(existsSync(path.join(host.root, 'opt')), false, 'nothing under /opt');
    assert.ok(!result.calls.some((call) => /^(useradd|systemctl|gatehouse)/.test(call)), result.calls.join('\n'));
    return result.stderr;
  };

  test('refuses a host where systemd is not running (a container), in one line of its own, before changing anything', () => {
    const stderr = refused(['--from', makeRelease()], { systemd: false });
    assert.equal(
      stderr,
      'install.sh: systemd is not running on this host (no /run/systemd/system; a container?): Gatehouse installs as a systemd service; nothing was installed\n',
    );
  });

  test('refuses a tampered bundle whose SHA-256 differs from SHA256SUMS', () => {
    const release = makeRelease();
    const bundle = path.join(release, 'stable/1.2.0', `gatehouse-1.2.0-linux-${hostArch()}.tar.gz`);
    writeFileSync(bundle, Buffer.concat([readFileSync(bundle), Buffer.from('tampered')]));
    assert.match(
      refused(['--from', release]),
      /^install\.sh: checksum mismatch for gatehouse-1\.2\.0-linux-(x64|arm64)\.tar\.gz \(SHA256SUMS says [0-9a-f]{64}, the file is [0-9a-f]{64}\); nothing was installed\n$/,
    );
  });

  test('refuses a bundle missing from SHA256SUMS, a listed bundle missing from the release and an unknown version', () => {
    const release = makeRelease();
    const dir = path.join(release, 'stable/1.2.0');
    const bundle = `gatehouse-1.2.0-linux-${hostArch()}.tar.gz`;
    const sums = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8');
    writeFileSync(path.join(dir, 'SHA256SUMS'), '');
    assert.match(
      refused(['--from', release]),
      /no bundle for linux-(x64|arm64) in release 1\.2\.0 \(.* is not in SHA256SUMS\)/,
    );
    writeFileSync(path.join(dir, 'SHA256SUMS'), sums);
    execFileSync('rm', [path.join(dir, bundle)]);
    assert.match(refused(['--from', release]), /is listed in SHA256SUMS but missing at/);
    assert.match(
      refused(['--from', makeRelease(), '--version', '9.9.9']),
      /no release 9\.9\.9 in the stable channel at .* \(stable\/9\.9\.9\/SHA256SUMS is missing\)/,
    );
  });

  test('refuses when the release has no bundle for this architecture, and an architecture without bundles', () => {
    const other = hostArch() === 'x64' ? 'arm64' : 'x64';
    assert.match(
      refused(['--from', makeRelease(undefined, { arches: [other] })]),
      /no bundle for linux-(x64|arm64) in release 1\.2\.0/,
    );
    assert.match(
      refused(['--from', makeRelease()], { env: { STUB_MACHINE: 'riscv64' } }),
      /unsupported architecture: riscv64\. Gatehouse release bundles exist for amd64 \(x86_64\) and arm64 \(aarch64\)\./,
    );
  });

  test('refuses an unsupported distribution or release, naming it', () => {
    const cases: [string, string][] = [
      ['ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n', 'Debian GNU/Linux 12 (bookworm)'],
      ['ID=ubuntu\nVERSION_ID="22.04"\nPRETTY_NAME="Ubuntu 22.04.4 LTS"\n', 'Ubuntu 22.04.4 LTS'],
      ['ID=fedora\nVERSION_ID=41\nPRETTY_NAME="Fedora Linux 41"\n', 'Fedora Linux 41'],
      ['ID=debian\nPRETTY_NAME="Debian GNU/Linux forky/sid"\n', 'Debian GNU/Linux forky/sid'],
    ];
    for (const [osRelease, name] of cases)
      assert.equal(
        refused(['--from', makeRelease()], { osRelease }),
        `install.sh: unsupported distribution: ${name}. Gatehouse supports Debian 13 or newer and Ubuntu 24.04 or newer.\n`,
      );
  });

  test('accepts Ubuntu 24.04 and a later Debian', () => {
    for (const osRelease of [
      'ID=ubuntu\nVERSION_ID="24.04"\n',
      'ID=ubuntu\nVERSION_ID="26.10"\n',
      'ID=debian\nVERSION_ID="14"\n',
    ])
      assert.equal(runInstaller(makeHost(osRelease), ['--from', makeRelease(), '--no-setup']).code, 0, osRelease);
  });

  test('refuses a plain-HTTP release location, an unknown channel and a version that is not one', () => {
    assert.match(refused(['--from', 'http://releases.example.org']), /must be https:\/\/ or a local directory/);
    assert.match(refused(['--from', makeRelease(), '--channel', 'beta']), /unknown channel "beta": use stable or rc/);
    assert.match(refused(['--from', makeRelease(), '--version', '../../etc']), /not a version: "\.\.\/\.\.\/etc"/);
  });
});

describe('packaging files', () => {
  test('install.sh is clean under shellcheck (POSIX sh)', () => {
    const result = spawnSync('shellcheck', ['--shell=sh', INSTALLER], { encoding: 'utf8' });
    assert.equal(result.error, undefined, 'shellcheck is missing: .ci/run installs it');
    assert.equal(result.stdout, '');
    assert.equal(result.status, 0);
  });

  test('the systemd unit passes systemd-analyze verify (the executable aside, which only an install provides)', () => {
    const unit = path.resolve(import.meta.dirname, '../../packaging/gatehouse.service');
    const result = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
    assert.equal(result.error, undefined, 'systemd-analyze is missing');
    const problems = result.stderr
      .split('\n')
      .filter((line) => line && !line.includes('is not executable: No such file'));
    assert.deepEqual(problems, []);
    const text = readFileSync(unit, 'utf8');
    for (const line of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'CapabilityBoundingSet=\n',
      'ReadWritePaths=/var/lib/gatehouse /var/log/gatehouse',
      'SystemCallFilter=@system-service',
      'User=gatehouse',
    ])
      assert.ok(text.includes(line), line);
  });

  test('the unit limits systemd restarts to 10 a minute, keeps 64 and 78 failed, and claims no reload', () => {
    const unit = readFileSync(path.resolve(import.meta.dirname, '../../packaging/gatehouse.service'), 'utf8');
    const section = (name: string) => unit.split(/^\[/m).find((part) => part.startsWith(`${name}]`)) ?? '';
    // Start limits belong to [Unit]: under [Service] systemd ignores them (with only a warning).
    assert.match(section('Unit'), /^StartLimitIntervalSec=60$/m);
    assert.match(section('Unit'), /^StartLimitBurst=10$/m);
    assert.match(section('Service'), /^Restart=on-failure$/m);
    assert.match(section('Service'), /^RestartPreventExitStatus=64 78$/m);
    // The service reads gatehouse.toml only when it starts: a reload would pretend to apply a change.
    assert.doesNotMatch(unit, /^ExecReload=/m);
  });

  test('the unit rates as well hardened by systemd-analyze security (exposure 2.0 or lower)', () => {
    const unit = path.resolve(import.meta.dirname, '../../packaging/gatehouse.service');
    const result = spawnSync('systemd-analyze', ['security', '--offline=yes', '--no-pager', unit], {
      encoding: 'utf8',
    });
    const exposure = /Overall exposure level for gatehouse\.service: ([\d.]+)/.exec(result.stdout)?.[1];
    assert.ok(exposure, result.stdout + result.stderr);
    assert.ok(Number(exposure) <= 2, `exposure ${exposure}`);
  });
});
