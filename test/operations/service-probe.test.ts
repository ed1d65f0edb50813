// How restore and update find the service on its listener: plain HTTP, a TLS listener (whose certificate names the
// public domain, not the loopback address asked), and nothing listening.
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { getLocalJson, listenerAnswers, localUrlOf, probeForwardedFor } from '../../src/operations/service-probe.ts';
import { freePort } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/config.ts';
import { makeSelfSigned } from '../helpers/tls.ts';

describe('service probe', () => {
  test('probeForwardedFor names the local address the probe leaves from', () => {
    assert.equal(probeForwardedFor('https://[::1]:443/health/ready'), '::1');
    assert.equal(probeForwardedFor('http://localhost:8080/health/ready'), '127.0.0.1');
  });

  test('localUrlOf aims wildcard listeners at loopback and brackets IPv6', () => {
    assert.equal(localUrlOf('0.0.0.0:8080', '/health/ready'), 'http://127.0.0.1:8080/health/ready');
    assert.equal(localUrlOf('[::]:443', '/health/ready', true), 'https://[::1]:443/health/ready');
    assert.equal(localUrlOf('127.0.0.1:9000', '/health/live'), 'http://127.0.0.1:9000/health/live');
  });

  test('a TLS listener is read over https, and counts as running for a plain-HTTP probe', async () => {
    const pair = await makeSelfSigned(scratchDir('gatehouse-probe-'), 'probe');
    const forwarded: (string | undefined)[] = [];
    const server = createServer({ cert: pair.cert, key: pair.key }, (request, response) => {
      forwarded.push(request.headers['x-forwarded-for'] as string | undefined);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"status":"ok"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    after(() => server.close());
    const listen = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    assert.deepEqual(await getLocalJson(localUrlOf(listen, '/health/ready', true), 2000), {
      status: 200,
      body: { status: 'ok' },
    });
    // One valid address, the one it connects from: what server.trusted_proxy = true demands of every request.
    assert.deepEqual(forwarded, ['127.0.0.1']);
    assert.match((await listenerAnswers(listen)) ?? '', new RegExp(`^something holds the listener ${listen} \\(`));
  });

  test('nothing listening is not running', async () => {
    assert.equal(await listenerAnswers(`127.0.0.1:${await freePort()}`), null);
  });
});
