// The gateway beside its neighbours: a revocation on another node, an upstream that is down or stuck, WebSocket
// handshakes, and an organization the database does not know.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { ConfigError } from '../../src/config/errors.ts';
import { createPool } from '../../src/db/pool.ts';
import { startTestApp, TestClock } from '../helpers/app.ts';
import { makeServiceClient } from '../helpers/oauth-fixtures.ts';
import { clientCredentialsToken, postForm } from '../helpers/oauth-flow.ts';
import { send } from '../helpers/over-socket.ts';
import { nextTokenStateEvent } from '../helpers/token-state.ts';
import { closedPort, startUpstream } from '../helpers/upstream.ts';
import { databaseWithOrganization, gatewayConfig, policy, startGateway } from './fixtures.ts';

const envelopeOf = (body: string) => JSON.parse(body) as Record<string, unknown>;

describe('gateway: revocation on another node', async () => {
  const upstream = await startUpstream();
  const db = await databaseWithOrganization();
  const sql = db.sql;
  const config = gatewayConfig(upstream.port, [policy({ path_prefix: '/app/p/api', required_scope: 'read' })]);
  const clock = new TestClock();
  const nodeA = await startGateway(config, sql, clock);
  const poolB = createPool(db.url, { max: 5, connectTimeoutSeconds: 10 });
  after(() => poolB.end({ timeout: 5 }));
  const nodeB = await startGateway(config, poolB, clock);

  test('a token revoked on node A is refused by node B within a second', async () => {
    const service = await makeServiceClient(sql, nodeA.secrets.clientSecret);
    const token = (await clientCredentialsToken(nodeA, service)).json.access_token as string;
    const call = () =>
      send(nodeB, { method: 'GET', url: '/app/p/api/x', headers: { authorization: `Bearer ${token}` } });
    // Node B has verified the token and cached it as live.
    assert.equal((await call()).statusCode, 200);
    assert.equal((await call()).statusCode, 200);
    const { jti } = JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString()) as { jti: string };
    const invalidated = nextTokenStateEvent(
      nodeB.services.tokenStates,
      (e) => e.type === 'invalidated' && e.key === `jti:${jti}`,
    );
    const revokedAt = performance.now();
    const revoke = await postForm(nodeA, '/oauth/revoke', {
      client_id: service.client.id,
      client_secret: service.secret,
      token,
    });
    assert.equal(revoke.status, 200);
    await invalidated;
    const r = await call();
    assert.ok(performance.now() - revokedAt < 1000, 'node B refused the token only after a second');
    assert.equal(r.statusCode, 401);
    assert.equal(envelopeOf(r.body).error, 'invalid_token');
  });
});

describe('gateway: an upstream that is down or stuck', async () => {
  const { sql } = await databaseWithOrganization();
  const down = await startGateway(gatewayConfig(await closedPort(), []), sql);

  test('an absent upstream gives 502 upstream_unavailable at once, while readiness and OAuth keep working', async () => {
    const started = performance.now();
    const r = await send(down, { method: 'GET', url: '/app/public/x' });
    assert.ok(performance.now() - started < 1000, 'the 502 took a second or more');
    assert.equal(r.statusCode, 502);
    assert.deepEqual(envelopeOf(r.body), {
      error: 'upstream_unavailable',
      error_description: 'The product service behind the gateway is not reachable or failed; retry later.',
      request_id: r.headers['x-request-id'],
    });
    const ready = await send(down, { method: 'GET', url: '/health/ready' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(envelopeOf(ready.body), { status: 'ok' });
    const service = await makeServiceClient(sql, down.secrets.clientSecret);
    assert.equal((await clientCredentialsToken(down, service)).status, 200);
  });

  test("an upstream's 503 goes back to the client as it is, never retried", async () => {
    const upstream = await startUpstream();
    const busy = await startGateway(gatewayConfig(upstream.port, []), sql);
    const r = await send(busy, { method: 'GET', url: '/app/public/busy' });
    assert.equal(r.statusCode, 503);
    assert.equal(r.body, 'busy');
    assert.equal(r.headers['retry-after'], '0');
    assert.equal(upstream.received.length, 1);
  });

  test('an upstream that does not answer within upstream_timeout_seconds gives 504 upstream_timeout', async () => {
    const upstream = await startUpstream();
    const stuck = await startGateway(gatewayConfig(upstream.port, [], { upstream_timeout_seconds: 1 }), sql);
    const r = await send(stuck, { method: 'GET', url: '/app/public/hang' });
    assert.equal(r.statusCode, 504);
    assert.deepEqual(envelopeOf(r.body), {
      error: 'upstream_timeout',
      error_description: 'The product service behind the gateway did not answer in time; retry later.',
      request_id: r.headers['x-request-id'],
    });
  });
});

describe('gateway: behind a trusted reverse proxy', async () => {
  const upstream = await startUpstream();
  const { sql } = await databaseWithOrganization();
  const config = gatewayConfig(upstream.port, []);
  config.server.trusted_proxy = true;
  const t = await startGateway(config, sql);

  test('the upstream receives exactly one X-Forwarded-For: the address the proxy validated', async () => {
    const r = await send(t, {
      method: 'GET',
      url: '/app/public/x',
      headers: { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' },
    });
    assert.equal(r.statusCode, 200, r.body);
    const seen = envelopeOf(r.body) as { headers: Record<string, string>; rawHeaderNames: string[] };
    assert.equal(seen.headers['x-forwarded-for'], '203.0.113.9');
    assert.equal(seen.rawHeaderNames.filter((n) => n === 'x-forwarded-for').length, 1);
    assert.equal(seen.headers['x-forwarded-proto'], undefined);
  });

  test('two X-Forwarded-For addresses are refused with 400 invalid_forwarded_for and never forwarded', async () => {
    const before = upstream.received.length;
    const r = await send(t, {
      method: 'GET',
      url: '/app/public/x',
      headers: { 'x-forwarded-for': '203.0.113.9, 6.6.6.6' },
    });
    assert.equal(r.statusCode, 400);
    assert.equal(envelopeOf(r.body).error, 'invalid_forwarded_for');
    assert.equal(upstream.received.length, before);
  });
});

describe('gateway: a chunked request body over gateway.body_limit_bytes', async () => {
  const upstream = await startUpstream();
  const { sql } = await databaseWithOrganization();
  const t = await startGateway(gatewayConfig(upstream.port, [], { body_limit_bytes: 1000 }), sql, undefined, true);

  const chunkedPost = (chunks: number) =>
    fetch(`${t.url}/app/public/upload`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < chunks; i += 1) controller.enqueue(new Uint8Array(400).fill(65));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);

  test('a chunked body within the limit streams through', async () => {
    const r = await chunkedPost(2);
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { bodyBytes: number }).bodyBytes, 800);
  });

  test('a chunked body past the limit is cut off and answered 413 payload_too_large', async () => {
    const r = await chunkedPost(5);
    assert.equal(r.status, 413);
    assert.deepEqual(await r.json(), {
      error: 'payload_too_large',
      error_description: 'The request body is too large.',
      request_id: r.headers.get('x-request-id'),
    });
  });
});

describe('gateway: WebSocket upgrade', async () => {
  const upstream = await startUpstream();
  const { sql } = await databaseWithOrganization();
  const t = await startGateway(
    gatewayConfig(upstream.port, [policy({ path_prefix: '/app/p/live', required_scope: 'read' })]),
    sql,
    undefined,
    true,
  );
  const service = await makeServiceClient(sql, t.secrets.clientSecret);
  const wsUrl = (path: string) => `${t.url.replace('http:', 'ws:')}${path}`;

  test('a handshake with a valid token is proxied to the upstream WebSocket with the identity headers', async () => {
    const token = (await clientCredentialsToken(t, service)).json.access_token as string;
    const socket = new WebSocket(wsUrl('/app/p/live/feed'), {
      headers: { authorization: `Bearer ${token}`, 'x-gatehouse-subject': 'usr_spoofed' },
    });
    const messages: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      socket.on('message', (data) => {
        messages.push(data.toString());
        if (messages.length === 1) socket.send('ping');
        else {
          socket.close();
          resolve();
        }
      });
      socket.on('error', reject);
    });
    await done;
    assert.deepEqual(messages, [`hello ${service.client.id}`, 'echo ping']);
    const handshake = upstream.received.at(-1);
    assert.equal(handshake?.headers['x-gatehouse-client'], service.client.id);
    assert.equal(handshake?.headers['x-forwarded-for'], '127.0.0.1');
  });

  test('a handshake without a token is refused with 401 invalid_token and never reaches the upstream', async () => {
    const before = upstream.received.length;
    const socket = new WebSocket(wsUrl('/app/p/live/feed'));
    const refused = await new Promise<{ status: number; body: string; challenge: string | undefined }>(
      (resolve, reject) => {
        socket.on('unexpected-response', (request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on('end', () => {
            request.destroy();
            resolve({ status: response.statusCode ?? 0, body, challenge: response.headers['www-authenticate'] });
          });
        });
        socket.on('open', () => reject(new Error('the handshake was accepted')));
        socket.on('error', () => {});
      },
    );
    assert.equal(refused.status, 401);
    assert.equal(refused.challenge, 'Bearer, DPoP algs="ES256 EdDSA RS256 PS256"');
    assert.equal(envelopeOf(refused.body).error, 'invalid_token');
    assert.equal(upstream.received.length, before);
  });

  test('a handshake on an undeclared protected path is refused with 403 no_route_policy', async () => {
    const token = (await clientCredentialsToken(t, service)).json.access_token as string;
    const socket = new WebSocket(wsUrl('/app/p/other'), { headers: { authorization: `Bearer ${token}` } });
    const status = await new Promise<number>((resolve) => {
      socket.on('unexpected-response', (request, response) => {
        request.destroy();
        resolve(response.statusCode ?? 0);
      });
      socket.on('error', () => {});
    });
    assert.equal(status, 403);
  });
});

describe('gateway: startup against the database', () => {
  test('an auth.organization_id the database does not know stops startup, naming the key', async () => {
    const { sql } = await databaseWithOrganization();
    const config = gatewayConfig(18080, []);
    config.auth.organization_id = 'ghost';
    await assert.rejects(
      startTestApp({ config, sql }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message ===
          'Invalid configuration in (configuration):\n  auth.organization_id: organization "ghost" does not exist in the database',
    );
  });
});
