// The Gatehouse server under test, in its own process: `gatehouse serve --config FILE`, exactly as production
// starts it, against a fresh database and fresh secrets. The bench process (the load generator) shares neither its
// event loop nor its heap; it reaches the database directly only to insert fixtures and read results.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'smol-toml';
import { request } from 'undici';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles, loadSecrets, type Secrets } from '../../src/crypto/secret-files.ts';
import type { Sql } from '../../src/db/pool.ts';
import { makeConfig } from '../../test/helpers/config.ts';
import { benchDatabase } from '../lib.ts';

export const ISSUER = 'http://localhost:8080';
const MAIN = fileURLToPath(new URL('../../src/gatehouse.mjs', import.meta.url));

/**
 * How production starts the server: the environment assignments and Node options on the launcher's shebang line
 * (`#!/usr/bin/env -S [NAME=VALUE...] node [--flag...]`), which `npm start` and the installed `gatehouse` command
 * run through. Read from there, never copied, so the bench measures the process production runs.
 */
export function launcherStart(file = MAIN): { env: Record<string, string>; nodeFlags: string[] } {
  const shebang = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\/usr\/bin\/env -S ((?:[A-Z_]+=\S+ )*)node((?: --[a-z0-9-]+(?:=\S+)?)*)$/.exec(shebang);
  if (!match) throw new Error(`${file}: the shebang is not "#!/usr/bin/env -S [NAME=VALUE...] node [--flag...]"`);
  const words = (text = '') => text.split(' ').filter((word) => word !== '');
  const env = Object.fromEntries(
    words(match[1]).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );
  return { env, nodeFlags: words(match[2]) };
}

const JEMALLOC_DROP_IN = fileURLToPath(new URL('../../packaging/jemalloc.conf', import.meta.url));
const MULTIARCH = process.arch === 'arm64' ? 'aarch64-linux-gnu' : 'x86_64-linux-gnu';

/**
 * The allocator the installed service runs on: install.sh gives the unit packaging/jemalloc.conf when Debian's
 * libjemalloc2 is installed, so the bench does the same when this machine has it, with that file's own environment.
 * BENCH_ALLOCATOR=glibc measures glibc's malloc instead (for a comparison; the report's header says which ran).
 */
export function installedAllocator(): { name: string; env: Record<string, string> } {
  const library = `/usr/lib/${MULTIARCH}/libjemalloc.so.2`;
  if (process.env.BENCH_ALLOCATOR === 'glibc') return { name: "glibc's malloc (BENCH_ALLOCATOR=glibc)", env: {} };
  if (!existsSync(library)) return { name: "glibc's malloc (libjemalloc2 is not installed here)", env: {} };
  const line = readFileSync(JEMALLOC_DROP_IN, 'utf8')
    .split('\n')
    .find((text) => text.startsWith('Environment='));
  if (!line) throw new Error(`${JEMALLOC_DROP_IN} has no Environment= line`);
  const env = Object.fromEntries(
    line
      .slice('Environment='.length)
      .split(' ')
      .map((word) => [
        word.slice(0, word.indexOf('=')),
        word.slice(word.indexOf('=') + 1).replace('@LIBRARY@', library),
      ]),
  );
  return { name: `jemalloc (${library}, packaging/jemalloc.conf)`, env };
}

/** A compile cache directory (src/gatehouse.mjs) of its own: the first server started with it starts cold. */
export function freshCompileCache(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bench-compile-cache-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

// The servers of one bench run share a compile cache, like restarts of one installation: only the first starts cold.
let sharedCompileCache: ReturnType<typeof freshCompileCache> | null = null;
function runCompileCache(): string {
  if (!sharedCompileCache) {
    const cache = freshCompileCache();
    process.once('exit', cache.remove);
    sharedCompileCache = cache;
  }
  return sharedCompileCache.dir;
}

export interface BenchServer {
  url: string;
  pid: number;
  config: Config;
  secrets: Secrets;
  /** The bench process's own pool to the server's database, for fixtures and results. */
  sql: Sql;
  /** Resident set size of the server process, from /proc. */
  rssMegabytes(): number;
  /**
   * CPU time the server has used so far (user + system, all threads), from /proc: the process and its descendants,
   * since with server.workers above 1 the process is a supervisor and its workers answer the requests.
   */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** CPU seconds (user + system, every thread) a process has used, from /proc/PID/stat (clock ticks of 10 ms). */
export function processCpuSeconds(pid: number): number {
  const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A process and its live descendants, from /proc/PID/task/TID/children (Linux 3.5+). */
/** A process and its live descendants (Linux /proc): a node's supervisor and its workers. */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i += 1) {
    const current = tree[i] as number;
    try {
      for (const task of readdirSync(`/proc/${current}/task`))
        for (const child of readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').split(' '))
          if (child.trim() !== '') tree.push(Number(child));
    } catch {
      // exited meanwhile
    }
  }
  return tree;
}

/** CPU seconds used so far by a process and its live descendants (a supervisor and its workers). */
export function processTreeCpuSeconds(pid: number): number {
  let total = 0;
  for (const member of processTree(pid)) {
    try {
      total += processCpuSeconds(member);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/**
 * CPU seconds used so far by every PostgreSQL process on the machine (backends, WAL writer, checkpointer), from
 * /proc: what the database's side of a load costs, when the bench is the only thing using it. A process that exits
 * between listing and reading is skipped.
 */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') total += processCpuSeconds(Number(entry));
    } catch {
      // gone
    }
  }
  return total;
}

/**
 * CPU seconds used so far by the PostgreSQL backends serving the database `sql` is connected to (but not the one
 * asking), by process id: on a machine whose PostgreSQL serves others too, what the bench's own load costs. Compare two
 * snapshots with backendCpuSecondsSince.
 */
export async function backendCpuSnapshot(sql: Sql): Promise<Map<number, number>> {
  const rows = await sql<{ pid: number }[]>`
    select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  const snapshot = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      snapshot.set(pid, processCpuSeconds(pid));
    } catch {
      // gone
    }
  }
  return snapshot;
}

/** The backends' CPU seconds since `before`; a backend that connected meanwhile counts whole. */
export async function backendCpuSecondsSince(sql: Sql, before: Map<number, number>): Promise<number> {
  let total = 0;
  for (const [pid, seconds] of await backendCpuSnapshot(sql)) total += seconds - (before.get(pid) ?? 0);
  return total;
}

/** RSS in MB of a process and its live descendants added up: a node's supervisor and its workers. */
export const processTreeRssMegabytes = (pid: number): number =>
  processTree(pid).reduce((sum, member) => sum + processRssMegabytes(member), 0);

/** The server process's RSS in MB (Linux /proc: the bench runs on Linux). */
export function processRssMegabytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match?.[1]) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]) / 1024;
}

function waitForListening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /Gatehouse is listening on (\S+)/.exec(output);
      if (match?.[1]) {
        child.stderr?.off('data', onData);
        // Keep draining stderr so a chatty child never blocks on a full pipe.
        child.stderr?.resume();
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`gatehouse serve exited with ${code}:\n${output}`)));
  });
}

export interface StartServerOptions {
  compileCacheDir?: string;
  /** Extra configuration sections (e.g. [gateway] and [auth]), written to the file beside the defaults. */
  settings?: Record<string, unknown>;
  /** Rows the server needs before it starts (e.g. the organization auth.organization_id names). */
  beforeStart?: (sql: Sql) => Promise<void>;
  /**
   * The release executable (bin/gatehouse of a bundle) to run instead of the checkout's launcher: the same command
   * line, the launcher's environment and the installed service's allocator; its V8 options are its own.
   */
  executable?: string;
}

export async function startServer(options: StartServerOptions = {}): Promise<BenchServer> {
  const database = await benchDatabase();
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bench-'));
  const secretsDir = path.join(dir, 'secrets');
  generateSecretFiles(secretsDir);
  const secrets = loadSecrets(secretsDir);
  // One set of settings: the file the server reads and the Config the scenarios see are the same.
  const settings = {
    server: { issuer: ISSUER, listen: '127.0.0.1:0' },
    database: { url: database.url },
    secrets: { dir: secretsDir },
    data: { dir: path.join(dir, 'data') },
    organization: { id: 'acme', name: 'Acme', owner_subject: 'owner@acme.test' },
    logging: { level: 'warn' as const },
    // Every load comes from one loopback address, so the per-IP sign-in start limit is off for benchmarks.
    login: { starts_per_ip_per_minute: 0 },
    ...options.settings,
  };
  await options.beforeStart?.(database.sql);
  const config = makeConfig(settings);
  const configFile = path.join(dir, 'gatehouse.toml');
  writeFileSync(configFile, stringify(settings), { mode: 0o600 });
  const launcher = launcherStart();
  // BENCH_PROFILE_DIR=DIR writes a V8 CPU profile of each server process there (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  // BENCH_SERVER_NODE_FLAGS="--trace-gc ..." adds Node/V8 flags after the launcher's (so they win) and shows the
  // server's stdout, where such flags report; for looking into a result, never for a reported run. Nor for comparing
  // V8 flags by memory: Node's compile cache is kept per set of V8 flags, and process-footprint fills it from a server
  // started without them, so every later server strips and compiles the TypeScript again (13-24 MB more at idle).
  // Put a flag to compare on the launcher's shebang instead.
  const extraFlags = process.env.BENCH_SERVER_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const nodeFlags = [...launcher.nodeFlags, ...profile, ...extraFlags];
  const command = options.executable
    ? { file: options.executable, args: ['serve', '--config', configFile] }
    : { file: process.execPath, args: [...nodeFlags, MAIN, 'serve', '--config', configFile] };
  const child = spawn(command.file, command.args, {
    stdio: ['ignore', extraFlags.length > 0 ? 'inherit' : 'ignore', 'pipe'],
    env: {
      ...process.env,
      ...launcher.env,
      ...installedAllocator().env,
      DATABASE_URL: database.url,
      NODE_COMPILE_CACHE: options.compileCacheDir ?? runCompileCache(),
    },
  });
  const cleanup = async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  let url: string;
  try {
    url = await waitForListening(child);
  } catch (error) {
    await cleanup();
    throw error;
  }
  const pid = child.pid as number;
  return {
    url,
    pid,
    config,
    secrets,
    sql: database.sql,
    rssMegabytes: () => processRssMegabytes(pid),
    cpuSeconds: () => processTreeCpuSeconds(pid),
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await cleanup();
    },
  };
}

/** One request the server must answer with 200 (a warm-up, or a check that it is up). */
export async function warmUp(server: BenchServer, pathname = '/health/live'): Promise<void> {
  const response = await request(`${server.url}${pathname}`);
  await response.body.dump();
  if (response.statusCode !== 200) throw new Error(`${pathname} answered ${response.statusCode}`);
}
