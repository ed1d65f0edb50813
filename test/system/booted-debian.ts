// A Debian 13 booted with systemd as its PID 1 under `systemd-nspawn --boot`, for the system tests: its own root
// (a fresh copy of debian-root.ts's tarball in the scratch directory), so its own /tmp, /run and /var; systemd-
// tmpfiles empties the /tmp it sees at boot, which must never be the host's. It shares the host's network (no
// --private-network), so the service reaches the host's PostgreSQL and pebble over 127.0.0.1 and the tests reach
// the service there; it starts none of the host's services and sees no host file but the binds it is given.
// Commands run inside through nsenter into all of its namespaces, as root, with a clean environment.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { debianRootTarball } from './debian-root.ts';

export interface Bind {
  host: string;
  guest: string;
  readOnly?: boolean;
}

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

export interface BootedDebian {
  /** The booted system's / as seen from the host. */
  root: string;
  /** Runs a command inside as root; never throws for a non-zero exit status. */
  run(command: string[], options?: { timeoutMs?: number }): Promise<Result>;
  /** Powers it off (SIGTERM to nspawn: systemd shuts down) and removes its root. */
  stop(): Promise<void>;
}

const GUEST_ENV = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
};

async function until<T>(what: string, deadlineMs: number, probe: () => T | null | Promise<T | null>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs / 1000} s waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The container's PID 1 (systemd) as a host pid: nspawn's child whose command is systemd. */
function containerInit(nspawn: number): number | null {
  const tasks = path.join('/proc', String(nspawn), 'task');
  if (!existsSync(tasks)) return null;
  for (const task of execFileSync('ls', [tasks], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    const children = readFileSync(path.join(tasks, task, 'children'), 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    for (const child of children) {
      const comm = readFileSync(path.join('/proc', child, 'comm'), 'utf8').trim();
      if (comm === 'systemd') return Number(child);
    }
  }
  return null;
}

function runIn(pid: number, command: string[], timeoutMs: number): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      'nsenter',
      ['--target', String(pid), '--all', '--', ...command],
      { env: GUEST_ENV, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr: error && code === 1 && !stderr ? String(error.message) : stderr });
      },
    );
  });
}

export async function bootDebian(options: {
  scratch: string;
  name: string;
  binds: Bind[];
  log: (line: string) => void;
}): Promise<BootedDebian> {
  if (process.getuid?.() !== 0)
    throw new Error('the system tests boot systemd-nspawn and must run as root (CI runs them as root)');
  const tarball = debianRootTarball(options.log);
  const root = path.join(options.scratch, 'root');
  mkdirSync(root, { recursive: true });
  execFileSync('tar', ['--extract', '--numeric-owner', '--file', tarball, '--directory', root]);
  // What Debian's installer writes and mmdebstrap does not: without it `localhost` resolves nowhere (nsswitch goes on
  // to DNS), which no real host is like.
  writeFileSync(path.join(root, 'etc/hosts'), '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n');
  const consoleLog = path.join(options.scratch, 'console.log');
  const out = openSync(consoleLog, 'w');
  const binds = options.binds.map((b) => `--bind${b.readOnly ? '-ro' : ''}=${b.host}:${b.guest}`);
  const nspawn: ChildProcess = spawn(
    'systemd-nspawn',
    ['--quiet', '--register=no', '--keep-unit', '--boot', `--machine=${options.name}`, `--directory=${root}`, ...binds],
    // systemd 257 runs only on the unified cgroup hierarchy; this host mounts the hybrid one.
    { env: { ...process.env, SYSTEMD_NSPAWN_UNIFIED_HIERARCHY: '1' }, stdio: ['ignore', out, out] },
  );
  closeSync(out);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    nspawn.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const consoleTail = () => readFileSync(consoleLog, 'utf8').split('\n').slice(-30).join('\n');
  const stop = async () => {
    if (!exited) {
      nspawn.kill('SIGTERM');
      const killed = setTimeout(() => nspawn.kill('SIGKILL'), 60_000);
      await exit;
      clearTimeout(killed);
    }
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const pid = await until('systemd to start in the container', 60_000, () => {
      if (exited) throw new Error(`systemd-nspawn exited:\n${consoleTail()}`);
      return containerInit(nspawn.pid as number);
    });
    const run = (command: string[], o: { timeoutMs?: number } = {}) => runIn(pid, command, o.timeoutMs ?? 180_000);
    // Until systemd's own socket exists systemctl cannot ask; then `--wait` waits for the boot to finish.
    const state = await until('the boot to finish', 180_000, async () => {
      const answer = (await run(['systemctl', 'is-system-running', '--wait'])).stdout.trim();
      return answer === '' || answer === 'offline' ? null : answer;
    });
    if (state !== 'running') {
      const failed = await run(['systemctl', '--failed', '--no-legend']);
      throw new Error(`the booted system is ${state}: ${failed.stdout}\n${consoleTail()}`);
    }
    return { root, run, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
