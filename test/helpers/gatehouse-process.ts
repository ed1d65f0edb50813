// A real `gatehouse serve` process, started the way an operator starts it, for tests and benchmarks that need whole
// processes: several workers, several nodes, a node killed with SIGKILL. Its JSON log lines are kept and can be
// awaited; nothing here sleeps, every wait has a deadline.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateSecretFiles } from '../../src/crypto/secret-files.ts';
import { MAIN } from './cli.ts';

export interface NodeConfigOptions {
  /** Directory for this node's config file and data. */
  dir: string;
  /** Shared by every node of one installation: the same keys, peppers and audit key. */
  secretsDir: string;
  workers?: number | 'auto';
  trustedProxy?: boolean;
  issuer?: string;
  /** Extra TOML appended as is (sections of its own). */
  extra?: string;
  poolMax?: number;
  connectTimeoutSeconds?: number;
}

/** Writes a gatehouse.toml for one node (database.url comes from DATABASE_URL) and returns its path. */
export function writeNodeConfig(options: NodeConfigOptions): string {
  mkdirSync(options.dir, { recursive: true });
  generateSecretFiles(options.secretsDir);
  const file = path.join(options.dir, 'gatehouse.toml');
  const lines = [
    '[server]',
    `issuer = "${options.issuer ?? 'http://localhost:8080'}"`,
    'listen = "127.0.0.1:0"',
    `workers = ${JSON.stringify(options.workers ?? 1)}`,
    `trusted_proxy = ${options.trustedProxy ?? false}`,
    'shutdown_timeout_seconds = 5',
    '[database]',
    `pool_max = ${options.poolMax ?? 5}`,
    `connect_timeout_seconds = ${options.connectTimeoutSeconds ?? 5}`,
    '[data]',
    `dir = "${path.join(options.dir, 'data')}"`,
    '[secrets]',
    `dir = "${options.secretsDir}"`,
    '[organization]',
    'id = "acme"',
    'name = "Acme"',
    'owner_subject = "owner@acme.test"',
    '[logging]',
    'level = "info"',
    options.extra ?? '',
  ];
  writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
  return file;
}

export type LogRecord = Record<string, unknown> & { msg?: string };

export interface GatehouseProcess {
  /** http://127.0.0.1:PORT the process listens on. */
  url: string;
  pid: number;
  child: ChildProcess;
  logs: LogRecord[];
  stderr(): string;
  /** Resolves with the first log record (already written or still to come) that matches, or rejects at the deadline. */
  waitForLog(match: (record: LogRecord) => boolean, timeoutMs?: number): Promise<LogRecord>;
  /** SIGTERM, then the exit status. */
  stop(): Promise<number | null>;
  exited: Promise<number | null>;
}

export async function startGatehouse(options: {
  configFile: string;
  databaseUrl: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** A release executable (`npm run release`) to run instead of this checkout's src/main.ts. */
  executable?: string;
  /** Node options before src/main.ts (not with `executable`). */
  execArgv?: string[];
}): Promise<GatehouseProcess> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: options.databaseUrl, ...options.env };
  delete env.GATEHOUSE_CONFIG;
  delete env.GATEHOUSE_LISTEN;
  const [command, ...first] = options.executable
    ? [options.executable]
    : [process.execPath, ...(options.execArgv ?? []), MAIN];
  const child = spawn(command as string, [...first, 'serve', '--config', options.configFile], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogRecord[] = [];
  const waiters = new Set<{ match: (record: LogRecord) => boolean; resolve: (record: LogRecord) => void }>();
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      const record = JSON.parse(line) as LogRecord;
      logs.push(record);
      for (const waiter of waiters)
        if (waiter.match(record)) {
          waiters.delete(waiter);
          waiter.resolve(record);
        }
    }
  });
  let stderr = '';
  const listeningLine = /Gatehouse is listening on (http:\/\/\S+)/;
  const listening = new Promise<string>((resolve) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = listeningLine.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const waitForLog = (match: (record: LogRecord) => boolean, timeoutMs = 60_000) => {
    const found = logs.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<LogRecord>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (record: LogRecord) => {
          clearTimeout(timer);
          resolve(record);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching log line within ${timeoutMs} ms; stderr: ${stderr}`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };

  let startTimer: NodeJS.Timeout | undefined;
  const url = await Promise.race([
    listening,
    exited.then((code) => {
      throw new Error(`gatehouse serve exited with ${code} before listening: ${stderr}`);
    }),
    new Promise<never>((_, reject) => {
      // Generous: the bound only turns a hang into an error; a busy machine may take long to start a node.
      startTimer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`gatehouse serve did not listen in time: ${stderr}`));
      }, options.timeoutMs ?? 90_000);
    }),
  ]).finally(() => clearTimeout(startTimer));
  return {
    url,
    pid: child.pid ?? 0,
    child,
    logs,
    stderr: () => stderr,
    waitForLog,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // Past the configured shutdown timeout (5 s) and a margin, a process that still runs is a failure to report,
      // not a reason to hang the test file.
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(force);
      return code;
    },
    exited,
  };
}
