// Runs packaging/install.sh the way an operator does, but into a scratch root (--root) with the host-changing
// commands stubbed on PATH: systemctl, useradd and userdel record their arguments (useradd and userdel also change
// the scratch root's /etc/passwd, as with --root they would), and uname answers what a test says. Everything else (tar,
// sha256sum, install, chown, ln) is the real tool. Release directories are built here from stand-in bundles, so
// these tests need no release build; test/packaging/release.test.ts installs the real one.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { scratchDir } from '../helpers/config.ts';

export const INSTALLER = path.resolve(import.meta.dirname, '../../packaging/install.sh');
const PACKAGING = path.resolve(import.meta.dirname, '../../packaging');
export const SERVICE_UID = 990;

const STUBS: Record<string, string> = {
  // daemon-reload also records whether the allocator drop-in is there then, which the restart that follows runs on.
  systemctl: `echo "systemctl $*" >> "$STUB_LOG"
[ "$1" = daemon-reload ] && [ -f "$STUB_ROOT/etc/systemd/system/gatehouse.service.d/jemalloc.conf" ] && echo "(jemalloc.conf present)" >> "$STUB_LOG"
exit 0`,
  useradd: `echo "useradd $*" >> "$STUB_LOG"
root=; while [ $# -gt 0 ]; do case $1 in --root) root=$2; shift 2;; *) name=$1; shift;; esac; done
echo "$name:x:${SERVICE_UID}:${SERVICE_UID}::/var/lib/$name:/usr/sbin/nologin" >> "$root/etc/passwd"`,
  userdel: `echo "userdel $*" >> "$STUB_LOG"
root=; while [ $# -gt 0 ]; do case $1 in --root) root=$2; shift 2;; *) name=$1; shift;; esac; done
sed -i "/^$name:/d" "$root/etc/passwd"`,
  uname: '[ "$1" = -m ] && [ -n "$STUB_MACHINE" ] && { echo "$STUB_MACHINE"; exit 0; }; exec /bin/uname "$@"',
};

/** The stand-in executable: records its arguments; `setup` writes a config (listen from STUB_LISTEN) and a secret. */
const FAKE_GATEHOUSE = `#!/bin/sh
echo "gatehouse $*" >> "$STUB_LOG"
[ "$1" = setup ] || exit 0
shift; while [ $# -gt 0 ]; do case $1 in --config) config=$2;; --secrets-dir) secrets=$2;; esac; shift; done
printf '[server]\\nlisten = "%s"\\n' "\${STUB_LISTEN:-127.0.0.1:8080}" > "$config"; chmod 600 "$config"
echo secret > "$secrets/token-signing.key"; chmod 600 "$secrets/token-signing.key"
exit "\${STUB_SETUP_EXIT:-0}"
`;

export interface Host {
  root: string;
  log: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A scratch root with an os-release (Debian 13 unless told otherwise) and a PATH with the stubs first. It counts as
 * booted with systemd (root/run/systemd/system exists) unless `systemd` is false, as in a container.
 */
export function makeHost(
  osRelease = 'ID=debian\nVERSION_ID="13"\nPRETTY_NAME="Debian GNU/Linux 13 (trixie)"\n',
  options: { systemd?: boolean } = {},
): Host {
  const base = scratchDir('gatehouse-install-');
  const root = path.join(base, 'root');
  const bin = path.join(base, 'stubs');
  mkdirSync(path.join(root, 'etc'), { recursive: true });
  if (options.systemd !== false) mkdirSync(path.join(root, 'run/systemd/system'), { recursive: true });
  mkdirSync(bin);
  writeFileSync(path.join(root, 'etc/os-release'), osRelease);
  writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
  for (const [name, body] of Object.entries(STUBS)) {
    writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(path.join(bin, name), 0o755);
  }
  const log = path.join(base, 'calls.log');
  writeFileSync(log, '');
  return { root, log, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, STUB_LOG: log, STUB_ROOT: root } };
}

export const hostArch = (): 'x64' | 'arm64' => (process.arch === 'arm64' ? 'arm64' : 'x64');

export interface ReleaseOptions {
  version?: string;
  channel?: 'stable' | 'rc';
  arches?: string[];
  /** A release from before the allocator drop-in: its bundle has no jemalloc.conf. */
  withoutJemallocConf?: boolean;
}

/** A release directory laid out as packaging/release.ts writes it, with stand-in bundles. */
export function makeRelease(dir: string = scratchDir('gatehouse-release-'), options: ReleaseOptions = {}): string {
  const { version = '1.2.0', channel = 'stable', arches = [hostArch()] } = options;
  const target = path.join(dir, channel, version);
  mkdirSync(target, { recursive: true });
  const sums: string[] = [];
  for (const arch of arches) {
    const top = `gatehouse-${version}-linux-${arch}`;
    const stage = path.join(scratchDir('gatehouse-stage-'), top);
    mkdirSync(path.join(stage, 'bin'), { recursive: true });
    writeFileSync(path.join(stage, 'bin/gatehouse'), FAKE_GATEHOUSE, { mode: 0o755 });
    cpSync(path.join(PACKAGING, 'gatehouse.service'), path.join(stage, 'gatehouse.service'));
    if (!options.withoutJemallocConf) cpSync(path.join(PACKAGING, 'jemalloc.conf'), path.join(stage, 'jemalloc.conf'));
    cpSync(path.join(PACKAGING, 'gatehouse.example.toml'), path.join(stage, 'gatehouse.example.toml'));
    const name = `${top}.tar.gz`;
    execFileSync('tar', ['-czf', path.join(target, name), '-C', path.dirname(stage), top]);
    sums.push(
      `${createHash('sha256')
        .update(readFileSync(path.join(target, name)))
        .digest('hex')}  ${name}`,
    );
  }
  writeFileSync(path.join(target, 'SHA256SUMS'), `${sums.join('\n')}\n`);
  writeFileSync(path.join(dir, channel, 'LATEST'), `${version}\n`);
  return dir;
}

export interface InstallResult {
  code: number | null;
  stdout: string;
  stderr: string;
  calls: string[];
}

export function runInstaller(host: Host, args: string[], env: NodeJS.ProcessEnv = {}): InstallResult {
  writeFileSync(host.log, '');
  const result = spawnSync('sh', [INSTALLER, '--root', host.root, ...args], {
    env: { ...host.env, ...env },
    encoding: 'utf8',
  });
  const calls = readFileSync(host.log, 'utf8').split('\n').filter(Boolean);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, calls };
}

/** runInstaller without blocking the event loop, for tests that serve the release from this process. */
export async function runInstallerAsync(
  host: Host,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<InstallResult> {
  writeFileSync(host.log, '');
  const child = spawn('sh', [INSTALLER, '--root', host.root, ...args], { env: { ...host.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const calls = readFileSync(host.log, 'utf8').split('\n').filter(Boolean);
  return { code, stdout, stderr, calls };
}
