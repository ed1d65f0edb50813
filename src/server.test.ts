import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { startTestApp } from '../test/helpers/app.ts';
import { buildApp } from './app.ts';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (response) => {
      let body = '';
      response.on('data', (chunk) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful shutdown', () => {
  test('in-flight requests finish, new ones get 503 not_ready, then the listener closes', async () => {
    const base = await startTestApp();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const { app, beginShutdown } = await buildApp(base.deps);
    app.get('/test/slow', async () => {
      entered();
      await gate;
      return { finished: true };
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    const slow = get(`${url}/test/slow`);
    await started;
    beginShutdown();
    const refused = await get(`${url}/health/live`);
    assert.equal(refused.status, 503);
    assert.equal(JSON.parse(refused.body).error, 'not_ready');

    const closed = app.close();
    release();
    const finished = await slow;
    assert.equal(finished.status, 200);
    assert.deepEqual(JSON.parse(finished.body), { finished: true });
    await closed;
    await assert.rejects(get(`${url}/health/live`), /ECONNREFUSED/);
  });
});
