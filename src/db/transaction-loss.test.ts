// A connection lost in the middle of a transaction (a failover kills the primary's backends, a proxy cuts the
// connection) must fail the transaction with a "database unavailable" error and nothing else: postgres.js 3.4.9
// answers such a loss by writing its own ROLLBACK on the closed connection from a setImmediate, which throws
// "Cannot read properties of null (reading 'write')" outside any promise and ends the process
// (porsager/postgres#1208). These tests end in an uncaught exception without the guard in transaction-loss.ts.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import postgres from 'postgres';
import { adminUrl } from '../../test/helpers/database.ts';
import { TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import { isDatabaseUnavailable } from '../http/database-unavailable.ts';
import { createPool } from './pool.ts';

const killer = postgres(adminUrl(), { max: 1, onnotice: () => {} });
after(() => killer.end({ timeout: 1 }));

/** Resolves after a few turns of the event loop, by when a stray setImmediate write would have run and thrown. */
const turns = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
};

test('a transaction whose backend is terminated fails with an unavailable error, and the pool goes on', async () => {
  const sql = createPool(adminUrl(), { max: 2, connectTimeoutSeconds: 5 });
  after(() => sql.end({ timeout: 1 }));
  let pid: number | null = null;
  const transaction = sql.begin(async (tx) => {
    const [row] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
    pid = row?.pid ?? null;
    await tx`select pg_sleep(30)`;
  });
  const outcome = transaction.then(
    () => null,
    (error: unknown) => error,
  );
  while (pid === null) await new Promise((resolve) => setTimeout(resolve, 10));
  await killer`select pg_terminate_backend(${pid})`;
  const error = await outcome;
  assert.ok(isDatabaseUnavailable(error), `not an unavailable error: ${String(error)}`);
  await turns();
  const [row] = await sql<{ one: number }[]>`select 1 as one`;
  assert.equal(row?.one, 1);
});

test('a transaction whose connection is cut fails with an unavailable error, and so does one in a savepoint', async () => {
  const database = new URL(adminUrl());
  const proxy = new TcpProxy({ host: database.hostname, port: Number(database.port || 5432) });
  await proxy.start();
  after(() => proxy.stop());
  const viaProxy = new URL(adminUrl());
  viaProxy.port = String(proxy.port);
  const sql = createPool(viaProxy.toString(), { max: 2, connectTimeoutSeconds: 5 });
  after(() => sql.end({ timeout: 1 }));
  for (const nested of [false, true]) {
    let started = false;
    const transaction = sql.begin(async (tx) => {
      const body = async (q: typeof tx) => {
        await q`select 1`;
        started = true;
        await q`select pg_sleep(30)`;
      };
      if (nested) await tx.savepoint((sp) => body(sp as typeof tx));
      else await body(tx);
    });
    const outcome = transaction.then(
      () => null,
      (error: unknown) => error,
    );
    while (!started) await new Promise((resolve) => setTimeout(resolve, 10));
    proxy.cut();
    const error = await outcome;
    assert.ok(isDatabaseUnavailable(error), `not an unavailable error: ${String(error)}`);
    await turns();
  }
  const [row] = await sql<{ one: number }[]>`select 1 as one`;
  assert.equal(row?.one, 1);
});

test('any other failure in a transaction rolls it back at once, as before', async () => {
  const sql = createPool(adminUrl(), { max: 1, connectTimeoutSeconds: 5 });
  after(() => sql.end({ timeout: 1 }));
  const started = Date.now();
  await assert.rejects(
    sql.begin(async (tx) => {
      await tx`select 1`;
      await tx`select 1/0`;
    }),
    { code: '22012' },
  );
  assert.ok(Date.now() - started < 2000, 'the failure waited');
  // The one connection is usable again: the driver rolled the transaction back.
  const [row] = await sql<{ state: string }[]>`select current_setting('transaction_isolation') as state`;
  assert.ok(row?.state);
});
