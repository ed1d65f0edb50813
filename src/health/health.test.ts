import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { TcpProxy } from '../../test/helpers/tcp-proxy.ts';
import { createPool } from '../db/pool.ts';

describe('GET /health/ready', async () => {
  test('is ok when the database answers and every migration is applied', async () => {
    const { app } = await startTestApp();
    const response = await app.inject({ method: 'GET', url: '/health/ready' });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'ok' });
  });

  test('is 503 not_ready while migrations are missing', async () => {
    const database = await createTestDatabase();
    await database.sql`delete from schema_migrations where version = (select max(version) from schema_migrations)`;
    const { app } = await startTestApp({ sql: database.sql });
    const response = await app.inject({ method: 'GET', url: '/health/ready' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json(), {
      error: 'not_ready',
      error_description: 'Database migrations are not applied',
      request_id: response.headers['x-request-id'],
    });
  });

  test('is 503 not_ready while the database takes no writes (a standby, or set read-only)', async () => {
    const database = await createTestDatabase();
    const name = new URL(database.url).pathname.slice(1);
    await database.sql.unsafe(`alter database "${name}" set default_transaction_read_only = on`);
    const sql = createPool(database.url, { max: 1, connectTimeoutSeconds: 5 });
    after(() => sql.end({ timeout: 1 }));
    const { app } = await startTestApp({ sql });
    const response = await app.inject({ method: 'GET', url: '/health/ready' });
    assert.equal(response.statusCode, 503);
    assert.deepEqual(response.json(), {
      error: 'not_ready',
      error_description: 'The database is read-only (a standby)',
      request_id: response.headers['x-request-id'],
    });
  });

  test('is 503 while the database is unreachable and recovers when it returns, without a restart', async () => {
    const database = await createTestDatabase();
    const target = new URL(database.url);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    await proxy.start();
    after(() => proxy.stop());
    const proxied = new URL(database.url);
    proxied.port = String(proxy.port);
    const sql = createPool(proxied.toString(), { max: 2, connectTimeoutSeconds: 1 });
    after(() => sql.end({ timeout: 1 }));
    const { app } = await startTestApp({ sql });
    const ready = () => app.inject({ method: 'GET', url: '/health/ready' });

    assert.equal((await ready()).statusCode, 200);
    await proxy.stop();
    const down = await ready();
    assert.equal(down.statusCode, 503);
    assert.equal(down.json().error, 'not_ready');
    assert.equal(down.json().error_description, 'The database is unreachable');
    // Liveness does not depend on the database.
    assert.equal((await app.inject({ method: 'GET', url: '/health/live' })).statusCode, 200);

    await proxy.start();
    const up = await ready();
    assert.equal(up.statusCode, 200, up.body);
    assert.deepEqual(up.json(), { status: 'ok' });
  });
});
