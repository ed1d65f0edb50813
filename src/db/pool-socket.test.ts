import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, test } from 'node:test';
import { adminUrl } from '../../test/helpers/database.ts';
import { closedPort } from '../../test/helpers/upstream.ts';
import { createPool } from './pool.ts';

test('a server that accepts and hangs up without a word fails the query instead of holding it', async () => {
  // What HAProxy in front of Patroni does while no member is primary: the TCP connection is accepted, then closed.
  let accepted = 0;
  const server = createServer((socket) => {
    accepted += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => server.close());
  const { port } = server.address() as { port: number };
  // A connect timeout far beyond the test's own: only the refusal can end the query in time.
  const sql = createPool(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1, connectTimeoutSeconds: 600 });
  after(() => sql.end({ timeout: 0 }));
  const outcome = await Promise.race([
    sql`select 1`.then(
      () => 'answered',
      (error: { code?: string }) => error.code,
    ),
    new Promise((resolve) => setTimeout(() => resolve('still waiting'), 20_000).unref()),
  ]);
  assert.equal(outcome, 'ECONNREFUSED');
  assert.ok(accepted >= 1);
});

test('with several servers, a failure fails its query at once and later connections go to the server that works', async () => {
  const refusing = await closedPort();
  const database = new URL(adminUrl());
  const url = `postgres://postgres@127.0.0.1:${refusing},${database.hostname}:${database.port || 5432}/postgres`;
  const sql = createPool(url, { max: 1, connectTimeoutSeconds: 600 });
  after(() => sql.end({ timeout: 0 }));
  // The first connection goes to the first server, which refuses: the query fails instead of waiting.
  await assert.rejects(sql`select 1`, { code: 'ECONNREFUSED' });
  // The next connection goes to the second server.
  const [row] = await sql<{ port: number }[]>`select inet_server_port() as port`;
  assert.equal(row?.port, Number(database.port || 5432));
});
