// Slow and dropped database connections, made real with a TCP proxy between a running `gatehouse serve` and
// PostgreSQL: dropped connections and connections that never answer give 503 envelopes within the connect timeout,
// the pool recovers by itself once the network does, and no request is committed twice (the server never replays
// a statement whose answer it lost).
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { scratchDir } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startGatehouse, writeNodeConfig } from '../helpers/gatehouse-process.ts';
import { call, type HttpAnswer, until } from '../helpers/node-http.ts';
import { TcpProxy } from '../helpers/tcp-proxy.ts';

const database = await createTestDatabase();
const target = new URL(database.url);
const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
await proxy.start();
after(() => proxy.stop());
const proxied = new URL(database.url);
proxied.port = String(proxy.port);

const dir = scratchDir();
// connect_timeout 1 s bounds how long a request waits for a connection that never answers.
const configFile = writeNodeConfig({
  dir,
  secretsDir: path.join(dir, 'secrets'),
  connectTimeoutSeconds: 1,
  poolMax: 3,
  // Each request comes from its own address (the proxy's header), so the sign-in start rate limit stays out of it.
  trustedProxy: true,
  // No token state cache: its LISTEN connection would be one more connection through the proxy to account for.
  extra: '[tokens]\nstate_cache_seconds = 0',
});
const node = await startGatehouse({ configFile, databaseUrl: proxied.toString() });
after(() => node.stop());

let sent = 0;
const answered: string[] = [];
async function loginStart(): Promise<HttpAnswer> {
  sent += 1;
  const answer = await call(node.url, 'POST', '/auth/login', {
    json: { subject: 'someone@acme.test' },
    forwardedFor: `10.1.${Math.floor(sent / 250)}.${(sent % 250) + 1}`,
  });
  if (answer.status === 200) answered.push(answer.json.transaction_id as string);
  else assertUnavailable(answer);
  return answer;
}

function assertUnavailable(answer: HttpAnswer) {
  assert.equal(answer.status, 503, answer.text);
  assert.deepEqual(answer.json, {
    error: 'temporarily_unavailable',
    error_description: 'The service cannot reach its database right now; retry shortly.',
    request_id: answer.headers.get('x-request-id'),
  });
}

describe('database connections dropped or stalled', () => {
  test('connections cut under load give 503 envelopes to the requests on them, and the pool reconnects at once', async () => {
    const load = Array.from({ length: 3 }, async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await loginStart()).status);
      return statuses;
    });
    for (let i = 0; i < 4; i += 1) {
      await until('a request succeeded since the last cut', async () =>
        (await loginStart()).status === 200 ? true : undefined,
      );
      proxy.cut();
    }
    const statuses = (await Promise.all(load)).flat();
    assert.ok(statuses.every((s) => s === 200 || s === 503));
    assert.ok(statuses.includes(503), 'a cut met requests in flight');
    assert.equal((await loginStart()).status, 200, 'the pool recovered');
  });

  test('connections that never answer give a 503 envelope within the connect timeout, and service resumes after', async () => {
    proxy.stalled = true;
    proxy.cut();
    for (let i = 0; i < 3; i += 1) {
      const started = Date.now();
      assertUnavailable(await loginStart());
      assert.ok(Date.now() - started < 2500, `answered after ${Date.now() - started} ms`);
    }
    proxy.stalled = false;
    proxy.cut();
    const resumed = Date.now();
    await until('a login start succeeds again', async () => ((await loginStart()).status === 200 ? true : undefined));
    assert.ok(Date.now() - resumed < 3000, `resumed after ${Date.now() - resumed} ms`);
  });

  test('nothing was committed twice: every stored login transaction is one request, each answered one once', async () => {
    const [row] = await database.sql<{ rows: number; distinct: number }[]>`
      select count(*)::int as rows, count(distinct id)::int as distinct from login_transactions`;
    assert.ok(row);
    assert.ok(row.rows <= sent, `${row.rows} rows for ${sent} requests`);
    assert.ok(row.rows >= answered.length);
    assert.equal(new Set(answered).size, answered.length);
  });
});
