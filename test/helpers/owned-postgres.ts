// A PostgreSQL cluster a test owns, made with Debian's initdb and run with pg_ctl in its own temporary directory and
// port, so the test may stop and restart it without touching the shared server every other test uses. initdb and
// the server refuse to run as root, so they run as the postgres system user (runuser), who owns the directory.
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './haproxy.ts';

const run = promisify(execFile);
export const PG_BIN = '/usr/lib/postgresql/15/bin';

export interface OwnedPostgres {
  port: number;
  /** postgres://postgres@127.0.0.1:PORT/NAME */
  url(database?: string): string;
  start(): Promise<void>;
  /** Fast shutdown: open connections are ended, as in a restart or failover. */
  stop(): Promise<void>;
  /** Stops the server and removes the directory. */
  destroy(): Promise<void>;
}

async function asPostgres(command: string, args: string[]): Promise<void> {
  const binary = path.join(PG_BIN, command);
  if (userInfo().uid === 0) await run('runuser', ['-u', 'postgres', '--', binary, ...args]);
  else await run(binary, args);
}

export async function createOwnedPostgres(): Promise<OwnedPostgres> {
  const dir = mkdtempSync('/tmp/gatehouse-pg-');
  if (userInfo().uid === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const data = path.join(dir, 'data');
  await asPostgres('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off`;
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), ...args]);
  let running = false;
  const owned: OwnedPostgres = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async start() {
      await pgCtl('-o', options, '-w', '-t', '30', 'start');
      running = true;
    },
    async stop() {
      await pgCtl('-m', 'fast', '-w', '-t', '30', 'stop');
      running = false;
    },
    async destroy() {
      if (running) await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await owned.start();
  return owned;
}
