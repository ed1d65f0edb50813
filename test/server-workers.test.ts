// `gatehouse serve` with server.workers = 2: a real supervisor process forks two workers that share the listener,
// replaces a worker killed under it, drains both on SIGTERM, and leaves one verifiable audit chain per worker.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadSecrets } from '../src/crypto/secret-files.ts';
import { type Account, JSON_HEADERS, makeAccount } from './helpers/accounts.ts';
import { MAIN, runCli } from './helpers/cli.ts';
import { makeConfig, scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';
import { type GatehouseProcess, type LogRecord, startGatehouse, writeNodeConfig } from './helpers/gatehouse-process.ts';

const database = await createTestDatabase();
const dir = scratchDir();
const configFile = writeNodeConfig({ dir, secretsDir: path.join(dir, 'secrets'), workers: 2 });

const workerListening = (r: LogRecord) => r.msg === 'worker listening';
const accessLine = (r: LogRecord) => typeof r.status === 'number' && r.path === '/health/ready';

/** GET /health/ready until both given workers have answered one (each on a fresh connection), with a deadline. */
async function untilAnsweredBy(node: GatehouseProcess, pids: number[], deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const response = await fetch(`${node.url}/health/ready`, { headers: { connection: 'close' } });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
    const answered = new Set(node.logs.filter(accessLine).map((r) => r.pid));
    if (pids.every((pid) => answered.has(pid))) return;
    assert.ok(Date.now() < deadline, `workers ${pids} did not all answer; answered: ${[...answered]}`);
  }
}

const secrets = loadSecrets(path.join(dir, 'secrets'));
const accounts = [
  await makeAccount(database.sql, secrets, makeConfig(), { totp: true }),
  await makeAccount(database.sql, secrets, makeConfig(), { totp: true }),
] as const;

/** The pids named by the audit chains (a chain is named host:pid:random). */
async function chainPids(): Promise<number[]> {
  const rows = await database.sql<{ chain: string }[]>`select distinct chain from audit_events`;
  return rows.map((r) => Number(r.chain.split(':')[1])).sort();
}

/** /auth/login then /auth/mfa/verify with a wrong password, each on a fresh connection (so on any worker). */
async function failedSignIn(node: GatehouseProcess, account: Account): Promise<void> {
  const headers = { ...JSON_HEADERS, connection: 'close' };
  const started = await fetch(`${node.url}/auth/login`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ subject: account.email }),
  });
  assert.equal(started.status, 200);
  const { transaction_id, challenge_id } = (await started.json()) as Record<string, string>;
  const cookie = (started.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const verified = await fetch(`${node.url}/auth/mfa/verify`, {
    method: 'POST',
    headers: { ...headers, cookie },
    body: JSON.stringify({ transaction_id, challenge_id, password: 'not the password 1', totp: '000000' }),
  });
  assert.equal(verified.status, 401);
}

describe('gatehouse serve with server.workers = 2', () => {
  test('two workers answer on one port, a killed worker is replaced, SIGTERM drains all, and each audit chain verifies', async () => {
    // A Node option of the launcher's shebang: the handover must keep the options with the command line.
    const execArgv = ['--max-semi-space-size=2'];
    const node = await startGatehouse({ configFile, databaseUrl: database.url, execArgv });
    let exitCode: number | null = null;
    try {
      assert.match(
        node.stderr(),
        /Gatehouse is listening on http:\/\/127\.0\.0\.1:\d+\n(.*\n)* {2}workers: 2 processes \(server\.workers\)\n/,
      );
      const listening = await node.waitForLog((r) => r.msg === 'listening' && r.workers === 2);
      // The supervisor that answers is the process started, handed over to a fresh image (src/supervisor-handover.ts):
      // the pid a service manager or a shell knows, running the same command line.
      assert.equal(listening.pid, node.pid);
      assert.deepEqual(readFileSync(`/proc/${node.pid}/cmdline`, 'utf8').split('\0').slice(0, -1), [
        process.execPath,
        ...execArgv,
        MAIN,
        'serve',
        '--config',
        configFile,
      ]);
      assert.match(readFileSync(`/proc/${node.pid}/environ`, 'utf8'), /(^|\0)GATEHOUSE_SUPERVISOR=\{/);
      const first = node.logs.filter(workerListening).map((r) => r.pid as number);
      assert.equal(first.length, 2);
      assert.ok(!first.includes(node.pid), 'the workers are processes of their own');
      await untilAnsweredBy(node, first);

      // Each worker appends to its own chain: a failed sign-in is one record on the worker that answered the verify
      // step. Round-robin alternates connections, so one extra request in between moves the next verify to the other.
      for (let attempt = 0; (await chainPids()).length < 2; attempt += 1) {
        assert.ok(attempt < 4, `audit chains of ${await chainPids()} only`);
        await failedSignIn(node, accounts[attempt % 2] as Account);
        await fetch(`${node.url}/health/ready`, { headers: { connection: 'close' } });
      }
      assert.deepEqual(await chainPids(), [...first].sort());

      const victim = first[0] as number;
      const victimSlot = node.logs.find((r) => workerListening(r) && r.pid === victim)?.worker;
      process.kill(victim, 'SIGKILL');
      const exitedLine = await node.waitForLog((r) => r.msg === 'worker exited unexpectedly; restarting it');
      assert.deepEqual(
        {
          worker: exitedLine.worker,
          pid: exitedLine.pid,
          exitCode: exitedLine.exitCode,
          signal: exitedLine.signal,
          restartInMs: exitedLine.restartInMs,
        },
        { worker: victimSlot, pid: victim, exitCode: null, signal: 'SIGKILL', restartInMs: 250 },
      );
      const replacement = await node.waitForLog((r) => workerListening(r) && !first.includes(r.pid as number));
      assert.equal(replacement.worker, victimSlot);
      await untilAnsweredBy(node, [first[1] as number, replacement.pid as number]);
    } finally {
      exitCode = await node.stop();
    }
    assert.equal(exitCode, 0);
    const stopped = node.logs.filter((r) => r.msg === 'stopped').map((r) => r.pid);
    assert.equal(stopped.length, 3, 'both workers and the supervisor stopped gracefully');
    assert.ok(stopped.includes(node.pid));

    const verify = await runCli(['audit', 'verify', '--config', configFile], { env: { DATABASE_URL: database.url } });
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /OK/i);
  });

  test('a SIGTERM while the workers start stops the node gracefully once they have', async () => {
    const child = spawn(process.execPath, [MAIN, 'serve', '--config', configFile], {
      env: { ...process.env, DATABASE_URL: database.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const records: LogRecord[] = [];
    let pending = '';
    let signalled = false;
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.startsWith('{'))) {
        const record = JSON.parse(line) as LogRecord;
        records.push(record);
        // The first worker is up, and the supervisor waits for the second: the start is not over.
        if (workerListening(record) && !signalled) {
          signalled = true;
          child.kill('SIGTERM');
        }
      }
    });
    assert.equal(await exited, 0, 'the supervisor was not ended by the signal');
    assert.ok(signalled, 'a worker listened');
    assert.ok(
      records.some((r) => r.msg === 'stopped' && r.pid === child.pid),
      'the supervisor stopped gracefully',
    );
    // It waited for both to listen, then stopped both (a worker signalled right after listening may not have its
    // own handler yet and end at once): none is left running.
    const workers = records.filter(workerListening).map((r) => r.pid as number);
    assert.equal(workers.length, 2);
    for (const pid of workers) assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' });
  });
});
