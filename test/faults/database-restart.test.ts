// PostgreSQL restarted under load: a cluster this test owns (initdb + pg_ctl, its own directory and port) is stopped
// while a running `gatehouse serve` takes requests. During the outage every request gets a quick 503 envelope and
// /health/ready says not ready; after the server returns, requests succeed again within seconds, with no restart of
// Gatehouse.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { createPool } from '../../src/db/pool.ts';
import { scratchDir } from '../helpers/config.ts';
import { startGatehouse, writeNodeConfig } from '../helpers/gatehouse-process.ts';
import { call, type HttpAnswer, until } from '../helpers/node-http.ts';
import { createOwnedPostgres } from '../helpers/owned-postgres.ts';

const postgres = await createOwnedPostgres();
after(() => postgres.destroy());
const sql = createPool(postgres.url(), { max: 2, connectTimeoutSeconds: 5 });
await migrate(sql);
await sql.end({ timeout: 1 });

const dir = scratchDir();
// The load below sends hundreds of starts from one address: the per-IP start limit (60 a minute) is not under test.
const configFile = writeNodeConfig({
  dir,
  secretsDir: path.join(dir, 'secrets'),
  connectTimeoutSeconds: 2,
  extra: '[login]\nstarts_per_ip_per_minute = 0',
});
const node = await startGatehouse({ configFile, databaseUrl: postgres.url(), env: {} });
after(() => node.stop());

const loginStart = () =>
  call(node.url, 'POST', '/auth/login', { json: { subject: 'someone@acme.test' }, forwardedFor: null });

function assertUnavailable(answer: HttpAnswer) {
  assert.equal(answer.status, 503, answer.text);
  assert.deepEqual(answer.json, {
    error: 'temporarily_unavailable',
    error_description: 'The service cannot reach its database right now; retry shortly.',
    request_id: answer.headers.get('x-request-id'),
  });
  assert.equal(answer.headers.get('retry-after'), '2');
}

describe('PostgreSQL restarted under load', () => {
  test('requests get a quick 503 envelope during the outage and succeed again within seconds after it, without restarting Gatehouse', async () => {
    assert.equal((await loginStart()).status, 200);

    // Load that runs through the whole outage: sequential login starts, bounded by count.
    const statuses: number[] = [];
    let loadDone = false;
    const load = (async () => {
      for (let i = 0; i < 400 && !loadDone; i += 1) {
        const answer = await loginStart();
        statuses.push(answer.status);
        if (answer.status !== 200) assertUnavailable(answer);
      }
    })();

    await postgres.stop();
    for (let i = 0; i < 5; i += 1) {
      const started = Date.now();
      assertUnavailable(await loginStart());
      // Refused connections fail at once; connect_timeout_seconds (2 here) bounds anything slower.
      assert.ok(Date.now() - started < 2500, `answered in ${Date.now() - started} ms`);
    }
    const ready = await call(node.url, 'GET', '/health/ready', { forwardedFor: null });
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.json, {
      error: 'not_ready',
      error_description: 'The database is unreachable',
      request_id: ready.headers.get('x-request-id'),
    });

    await postgres.start();
    const back = Date.now();
    await until('a login start succeeds again', async () => ((await loginStart()).status === 200 ? true : undefined));
    await until('ready again', async () =>
      (await call(node.url, 'GET', '/health/ready', { forwardedFor: null })).status === 200 ? true : undefined,
    );
    assert.ok(Date.now() - back < 5000, `recovered in ${Date.now() - back} ms`);
    loadDone = true;
    await load;

    assert.ok(statuses.includes(503) && statuses.includes(200));
    assert.deepEqual([...new Set(statuses)].sort(), [200, 503], 'never a 500 or a hang');
    assert.equal(node.child.exitCode, null, 'the same Gatehouse process served throughout');
  });
});
