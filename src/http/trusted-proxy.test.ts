import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { makeConfig } from '../../test/helpers/config.ts';
import { singleForwardedAddress } from './trusted-proxy.ts';

describe('trusted-proxy mode', async () => {
  const { app, logs } = await startTestApp({ config: makeConfig({ server: { trusted_proxy: true } }) });
  const ready = (headers: Record<string, string | string[]>) =>
    app.inject({ method: 'GET', url: '/health/ready', headers });

  const refused: [string, Record<string, string | string[]>][] = [
    ['no X-Forwarded-For', {}],
    ['two addresses in one header', { 'x-forwarded-for': '203.0.113.7, 198.51.100.2' }],
    ['two header lines', { 'x-forwarded-for': ['203.0.113.7', '198.51.100.2'] }],
    ['an empty value', { 'x-forwarded-for': '' }],
    ['a host name', { 'x-forwarded-for': 'client.example.com' }],
    ['an address with a port', { 'x-forwarded-for': '203.0.113.7:5555' }],
    ['a bracketed IPv6 address', { 'x-forwarded-for': '[2001:db8::1]' }],
    ['an out-of-range IPv4 address', { 'x-forwarded-for': '256.1.1.1' }],
    ['the unknown token', { 'x-forwarded-for': 'unknown' }],
  ];
  for (const [name, headers] of refused) {
    test(`refuses ${name} with 400 invalid_forwarded_for`, async () => {
      const response = await ready(headers);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), {
        error: 'invalid_forwarded_for',
        error_description: 'The request must carry exactly one valid X-Forwarded-For address from the trusted proxy.',
        request_id: response.headers['x-request-id'],
      });
    });
  }

  for (const address of ['203.0.113.7', '2001:db8::1', '::ffff:192.0.2.1']) {
    test(`accepts exactly one address (${address}) and logs it as the client IP`, async () => {
      const response = await ready({ 'x-forwarded-for': ` ${address} ` });
      assert.equal(response.statusCode, 200);
      const line = logs.lines.map((l) => JSON.parse(l)).find((l) => l.reqId === response.headers['x-request-id']);
      assert.equal(line?.ip, address);
    });
  }

  test('off, the socket address is the client IP and the header is ignored', async () => {
    const direct = await startTestApp();
    const response = await direct.app.inject({
      method: 'GET',
      url: '/health/ready',
      headers: { 'x-forwarded-for': '203.0.113.7' },
    });
    assert.equal(response.statusCode, 200);
    const line = direct.logs.lines.map((l) => JSON.parse(l)).find((l) => l.reqId === response.headers['x-request-id']);
    assert.equal(line?.ip, '127.0.0.1');
  });

  test('the header parser never accepts garbage (fuzz)', () => {
    const alphabet = '0123456789abcdef:.,[] x';
    for (let i = 0; i < 5000; i += 1) {
      let value = '';
      for (let j = Math.floor(Math.random() * 30); j > 0; j -= 1)
        value += alphabet[Math.floor(Math.random() * alphabet.length)];
      const parsed = singleForwardedAddress(value);
      if (parsed !== null) assert.ok(!parsed.includes(',') && !parsed.includes(' ') && !parsed.includes('['), value);
    }
  });
});
