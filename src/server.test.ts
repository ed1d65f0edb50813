import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { LogCapture, startTestApp } from '../test/helpers/app.ts';
import { MAIN, writeCliConfig } from '../test/helpers/cli.ts';
import { makeConfig, scratchDir } from '../test/helpers/config.ts';
import { createTestDatabase } from '../test/helpers/database.ts';
import { buildApp } from './app.ts';
import { generateSecretFiles } from './crypto/secret-files.ts';
import type { Sql } from './db/pool.ts';
import { startServer } from './server.ts';

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

/** A request the test holds open: `entered` resolves once the handler runs, `release()` lets it finish. */
function heldRequest() {
  let release: () => void = () => {};
  let enter: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const entered = new Promise<void>((resolve) => {
    enter = resolve;
  });
  after(() => release());
  return { gate, entered, enter, release: () => release() };
}

/** The real startServer against a per-file database, with a held route that uses the server's own pool. */
async function startHeldServer(scheduleForcedClose?: (close: () => void, ms: number) => () => void) {
  const dir = scratchDir();
  const secrets = path.join(dir, 'secrets');
  generateSecretFiles(secrets);
  const database = await createTestDatabase();
  const config = makeConfig({ database: { url: database.url }, secrets: { dir: secrets }, data: { dir } });
  const logs = new LogCapture();
  const held = heldRequest();
  let pool: Sql | null = null;
  let app: FastifyInstance | null = null;
  const server = await startServer(
    { config, file: null, development: false, deferred: [] },
    {
      logStream: logs,
      ...(scheduleForcedClose ? { scheduleForcedClose } : {}),
      extend: (instance, sql) => {
        app = instance;
        pool = sql;
        instance.get('/test/held', async () => {
          held.enter();
          await held.gate;
          const [row] = await sql`select 1 as one`;
          return { one: row?.one };
        });
      },
    },
  );
  after(() => server.stop());
  if (!pool || !app) throw new Error('extend was not called');
  return { server, logs, held, pool: pool as Sql, app: app as FastifyInstance, config };
}

const openConnections = (app: FastifyInstance) =>
  new Promise<number>((resolve, reject) =>
    app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
  );

describe('startServer(...).stop()', () => {
  test('finishes the in-flight request on the open pool, refuses new connections at once, then closes the pool', async () => {
    const { server, logs, held, pool } = await startHeldServer();
    const inFlight = get(`${server.url}/test/held`);
    await held.entered;

    const stopped = server.stop();
    await assert.rejects(get(`${server.url}/health/live`), /ECONNREFUSED/);
    held.release();
    assert.deepEqual(await inFlight, { status: 200, body: '{"one":1}' });
    await stopped;

    await assert.rejects(pool`select 1`, { code: 'CONNECTION_ENDED' });
    const messages = logs.lines.map((line) => JSON.parse(line).msg);
    const stopping = messages.indexOf('stopping: new connections refused, finishing in-flight requests');
    assert.ok(stopping >= 0, 'the stop is logged');
    assert.ok(messages.indexOf('stopped') > stopping, 'and its end');
    assert.equal(messages.includes('shutdown timeout: closing the connections still open'), false);
  });

  test('closes a request still running after shutdown_timeout_seconds and still closes the pool', async () => {
    // The forced close is scheduled through the seam, so the test fires it instead of waiting.
    const scheduled: { close: () => void; ms: number }[] = [];
    const { server, logs, held, pool, app, config } = await startHeldServer((close, ms) => {
      scheduled.push({ close, ms });
      return () => {};
    });
    const inFlight = get(`${server.url}/test/held`);
    await held.entered;

    const stopped = server.stop();
    assert.deepEqual(
      scheduled.map((s) => s.ms),
      [config.server.shutdown_timeout_seconds * 1000],
    );
    assert.equal(await openConnections(app), 1, 'the request runs on until the timeout');
    scheduled[0]?.close();
    await assert.rejects(inFlight, /socket hang up|ECONNRESET/);
    await stopped;
    await assert.rejects(pool`select 1`, { code: 'CONNECTION_ENDED' });
    assert.ok(logs.text.includes('shutdown timeout: closing the connections still open'));
  });
});

describe('buildApp beginShutdown', () => {
  test('a request arriving on an open connection after shutdown began gets 503 not_ready', async () => {
    const base = await startTestApp();
    const { app, beginShutdown } = await buildApp(base.deps);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    after(() => app.close());
    beginShutdown();
    const refused = await get(`${url}/health/live`);
    assert.equal(refused.status, 503);
    assert.deepEqual(
      { ...JSON.parse(refused.body), request_id: 'x' },
      { error: 'not_ready', error_description: 'The service is shutting down', request_id: 'x' },
    );
  });
});

/** Collects everything a stream writes; `until(pattern)` resolves with the first match, now or later. */
function collect(stream: NodeJS.ReadableStream) {
  let text = '';
  const waiters = new Set<() => void>();
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const check of waiters) check();
  });
  return {
    get text() {
      return text;
    },
    until(pattern: RegExp): Promise<string> {
      return new Promise((resolve) => {
        const check = () => {
          const match = pattern.exec(text);
          if (!match) return;
          waiters.delete(check);
          resolve(match[0]);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

describe('gatehouse serve on SIGTERM', () => {
  // The request is held open by the client itself: it sends the headers with `Expect: 100-continue`, waits for the
  // server's 100 (sent as the request is dispatched), and sends the body only after the server began stopping.
  test('finishes a request in flight on the database, refuses new connections, and exits 0', async () => {
    const configFile = writeCliConfig();
    const database = await createTestDatabase();
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database.url, GATEHOUSE_LISTEN: '127.0.0.1:0' };
    delete env.GATEHOUSE_CONFIG;
    const child = spawn(process.execPath, [MAIN, 'serve', '--config', configFile], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    after(() => child.kill('SIGKILL'));
    const exited = once(child, 'close');
    const stdout = collect(child.stdout);
    const stderr = collect(child.stderr);
    const listening = await stderr.until(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const base = listening.replace('listening on ', '');
    const { port } = new URL(base);

    const socket = connect(Number(port), '127.0.0.1');
    const answer = collect(socket);
    const body = JSON.stringify({ subject: 'someone@acme.test' });
    socket.write(
      [
        'POST /auth/login HTTP/1.1',
        'Host: localhost:8080',
        'Origin: http://localhost:8080',
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Expect: 100-continue',
        'Connection: close',
        '',
        '',
      ].join('\r\n'),
    );
    await answer.until(/^HTTP\/1\.1 100 Continue\r\n\r\n/);

    child.kill('SIGTERM');
    await stdout.until(/stopping: new connections refused/);
    await assert.rejects(get(`${base}/health/live`), /ECONNREFUSED/);

    // write, not end: a half-closed client connection makes Node's HTTP server abort the request.
    socket.write(body);
    await once(socket, 'end');
    const response = answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4);
    assert.match(response, /^HTTP\/1\.1 200 OK\r\n/, `${answer.text}\n${stderr.text}\n${stdout.text}`);
    const json = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(Object.keys(json).sort(), ['challenge_id', 'expires_in', 'transaction_id']);

    const [code] = await exited;
    assert.equal(code, 0, stderr.text);
    assert.match(stdout.text, /"msg":"stopped"/);
    const [started] = await database.sql`select count(*)::int as n from login_transactions`;
    assert.equal(started?.n, 1, 'the in-flight login start was stored before the pool closed');
  });
});
