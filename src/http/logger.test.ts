import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { redactSecrets } from './logger.ts';

describe('logs', async () => {
  const password = 'correct horse battery staple 9431';
  const bearer = 'eyJhbGciOiJSUzI1NiJ9.secret-bearer-payload.signature-part';
  const cookie = 'gatehouse_session=Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eHF1dXg';
  const code = 'authorization-code-never-logged-5521';
  const { app, logs } = await startTestApp({
    extend: (app) => {
      // A careless route that logs everything it received: redaction must still hold.
      app.post('/test/careless', async (request) => {
        request.log.info({ body: request.body, headers: request.headers, query: request.query }, 'careless');
        throw new Error('boom');
      });
    },
  });

  test('a password, a bearer token, a cookie and a code never reach a log line', async () => {
    const response = await app.inject({
      method: 'POST',
      url: `/test/careless?code=${code}&access_token=${bearer}`,
      headers: {
        authorization: `Bearer ${bearer}`,
        cookie,
        'content-type': 'application/json',
        origin: 'http://localhost:8080',
      },
      payload: { password, nested: { client_secret: 'cs-1234567890', refresh_token: 'rt-1234567890' } },
    });
    assert.equal(response.statusCode, 500);
    // The client sees only the generic text; the cause (which here carries the password) stays out of the response.
    assert.deepEqual(response.json(), {
      error: 'server_error',
      error_description: 'The server could not complete the request.',
      request_id: response.headers['x-request-id'],
    });
    await app.inject({
      method: 'GET',
      url: `/nowhere?code=${code}`,
      headers: { authorization: `Bearer ${bearer}`, cookie },
    });
    assert.ok(logs.lines.length >= 3);
    for (const secret of [password, bearer, cookie.split('=')[1] as string, code, 'cs-1234567890', 'rt-1234567890']) {
      assert.ok(!logs.text.includes(secret), `log output contains ${secret}`);
    }
    assert.match(logs.text, /\[redacted\]/);
  });
});

describe('the request log line', async () => {
  const { app, logs } = await startTestApp();
  /** The `request` line of the answer, parsed. */
  const lineOf = (response: { headers: Record<string, unknown> }) => {
    const line = logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'request' && l.reqId === response.headers['x-request-id']);
    assert.ok(line, 'no request line');
    return line;
  };
  const form = { 'content-type': 'application/x-www-form-urlencoded' };

  test('names the error code of a refused token request (HTTP Basic: 401 invalid_client), never its description', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { ...form, authorization: `Basic ${Buffer.from('cli_x:secret-value-77').toString('base64')}` },
      payload: 'grant_type=client_credentials',
    });
    assert.equal(response.statusCode, 401);
    const line = lineOf(response);
    assert.equal(line.status, 401);
    assert.equal(line.error_code, 'invalid_client');
    assert.ok(!JSON.stringify(line).includes('not supported'), 'the description stays out of the line');
    assert.ok(!logs.text.includes('secret-value-77'));
  });

  test('names the code of every other error envelope and of the sign-in error page', async () => {
    const grant = await app.inject({ method: 'POST', url: '/oauth/token', headers: form, payload: 'grant_type=nope' });
    assert.equal(lineOf(grant).error_code, 'unsupported_grant_type');
    const missing = await app.inject({ method: 'GET', url: '/nowhere' });
    assert.equal(lineOf(missing).error_code, 'not_found');
    const page = await app.inject({ method: 'GET', url: '/oauth/authorize?response_type=code' });
    assert.equal(page.statusCode, 400);
    assert.equal(lineOf(page).error_code, 'invalid_request');
  });

  test('has no error code when the answer is not an error', async () => {
    const ok = await app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    assert.equal(ok.statusCode, 200);
    assert.equal('error_code' in lineOf(ok), false);
  });
});

describe('log redaction', () => {
  test('redacts secret-bearing keys at any depth and in arrays, and leaves the logged object unchanged', () => {
    const logged = {
      path: '/oauth/token',
      a: { b: { c: { d: { Client_Secret: 'cs-1', ok: 1 } } } },
      list: [{ refresh_token: 'rt-1' }, 'plain'],
    };
    const before = structuredClone(logged);
    assert.deepEqual(redactSecrets(logged), {
      path: '/oauth/token',
      a: { b: { c: { d: { Client_Secret: '[redacted]', ok: 1 } } } },
      list: [{ refresh_token: '[redacted]' }, 'plain'],
    });
    assert.deepEqual(logged, before);
  });

  test('an object without secrets is returned as it is, not copied', () => {
    const logged = { method: 'GET', status: 200, nested: { ms: 3 } };
    assert.equal(redactSecrets(logged), logged);
  });
});
