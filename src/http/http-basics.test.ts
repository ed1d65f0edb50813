import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../../test/helpers/app.ts';
import { makeConfig } from '../../test/helpers/config.ts';
import { addFormBodyParser } from './form-body.ts';
import { describeField } from './validation-messages.ts';

describe('HTTP basics', async () => {
  const { app } = await startTestApp({
    config: makeConfig({ server: { body_limit_bytes: 1024 } }),
    extend: (app) =>
      app.post(
        '/test/echo',
        { schema: { body: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } } },
        async (request) => request.body,
      ),
  });

  const envelope = (body: string) => JSON.parse(body) as Record<string, unknown>;

  test('an unknown path answers 404 with the envelope and the request id header', async () => {
    const response = await app.inject({ method: 'GET', url: '/no/such/path' });
    assert.equal(response.statusCode, 404);
    const requestId = response.headers['x-request-id'];
    assert.ok(typeof requestId === 'string' && requestId.length >= 16);
    assert.deepEqual(envelope(response.body), {
      error: 'not_found',
      error_description: 'No such resource.',
      request_id: requestId,
    });
  });

  test('a known path with an unknown method answers 405 with Allow', async () => {
    const response = await app.inject({ method: 'PUT', url: '/health/live' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'GET, HEAD');
    assert.deepEqual(envelope(response.body), {
      error: 'method_not_allowed',
      error_description: 'This method is not allowed on this path.',
      request_id: response.headers['x-request-id'],
    });
  });

  test('a POST-only path answers GET with 405 and Allow: POST', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/echo' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.headers.allow, 'POST');
    assert.deepEqual(envelope(response.body), {
      error: 'method_not_allowed',
      error_description: 'This method is not allowed on this path.',
      request_id: response.headers['x-request-id'],
    });
  });
});

describe('HTTP envelope for framework errors', async () => {
  const { app } = await startTestApp({
    config: makeConfig({ server: { body_limit_bytes: 1024 } }),
    extend: (app) => {
      app.post(
        '/test/strict',
        {
          schema: {
            body: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string', maxLength: 10 }, count: { type: 'integer' } },
              additionalProperties: false,
            },
          },
        },
        async (request) => request.body,
      );
      // Form bodies are parsed only where a plugin registers the form parser, as the OAuth module does.
      app.register(async (forms) => {
        addFormBodyParser(forms);
        forms.post('/test/form', async (request) => request.body);
      });
      app.get('/test/crash', async () => {
        throw new TypeError('internal detail that must not leak');
      });
    },
  });
  const json = { 'content-type': 'application/json' };
  const envelopeOf = (response: { json(): Record<string, unknown>; headers: Record<string, unknown> }) => {
    const body = response.json();
    assert.equal(body.request_id, response.headers['x-request-id']);
    return body;
  };

  test('a body over the limit answers 413 payload_too_large', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/test/strict',
      headers: json,
      payload: JSON.stringify({ name: 'x'.repeat(2000) }),
    });
    assert.equal(response.statusCode, 413);
    assert.deepEqual(envelopeOf(response), {
      error: 'payload_too_large',
      error_description: 'The request body is too large.',
      request_id: response.headers['x-request-id'],
    });
  });

  const otherBodies = [
    ['text/plain', 'text/plain'],
    ['form-encoded', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
  ];
  for (const [name, type] of otherBodies) {
    test(`a ${name} body where JSON is expected answers 415 unsupported_media_type`, async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/test/strict',
        headers: { 'content-type': type },
        payload: 'name=x',
      });
      assert.equal(response.statusCode, 415);
      assert.deepEqual(envelopeOf(response), {
        error: 'unsupported_media_type',
        error_description: 'The request body has an unsupported content type.',
        request_id: response.headers['x-request-id'],
      });
    });
  }

  test('malformed JSON answers 400 invalid_request', async () => {
    const response = await app.inject({ method: 'POST', url: '/test/strict', headers: json, payload: '{"name": ' });
    assert.equal(response.statusCode, 400);
    const body = envelopeOf(response);
    assert.equal(body.error, 'invalid_request');
    assert.equal(body.error_description, 'The request body is not valid JSON');
  });

  const invalid: [string, unknown, { path: string; problem: string }][] = [
    [
      'an unknown field',
      { name: 'a', extra: 1 },
      { path: 'body.extra', problem: 'This request does not accept this field; remove it.' },
    ],
    ['a missing field', { count: 1 }, { path: 'body.name', problem: 'This is required.' }],
    ['a wrong type (no coercion)', { name: 'a', count: '5' }, { path: 'body.count', problem: 'Enter a whole number.' }],
    ['a too-long string', { name: 'abcdefghijk' }, { path: 'body.name', problem: 'Use at most 10 characters.' }],
  ];
  for (const [name, payload, field] of invalid) {
    test(`${name} answers 400 invalid_request naming the field`, async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/test/strict',
        headers: json,
        payload: JSON.stringify(payload),
      });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(envelopeOf(response), {
        error: 'invalid_request',
        error_description: describeField(field),
        request_id: response.headers['x-request-id'],
        fields: [field],
      });
    });
  }

  test('a form body with a repeated parameter answers 400 (RFC 6749 §3.1)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/test/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=a&grant_type=b',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(envelopeOf(response).error_description, 'Parameter grant_type is included more than once');
  });

  test('a form body is parsed into plain fields', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/test/form',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'a=1&b=two+words&c=%2F',
    });
    assert.deepEqual(response.json(), { a: '1', b: 'two words', c: '/' });
  });

  test('an unexpected error answers 500 server_error with a generic text', async () => {
    const response = await app.inject({ method: 'GET', url: '/test/crash' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(envelopeOf(response), {
      error: 'server_error',
      error_description: 'The server could not complete the request.',
      request_id: response.headers['x-request-id'],
    });
  });

  test('every response carries the security headers and no-store', async () => {
    for (const url of ['/health/live', '/no/such/path']) {
      const response = await app.inject({ method: 'GET', url });
      assert.equal(response.headers['cache-control'], 'no-store');
      assert.equal(response.headers['x-content-type-options'], 'nosniff');
      assert.equal(response.headers['referrer-policy'], 'no-referrer');
      assert.equal(response.headers['x-frame-options'], 'DENY');
      assert.equal(response.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'");
      assert.equal(response.headers['strict-transport-security'], undefined, 'no HSTS over plain http');
    }
  });

  test('HSTS is sent when the issuer is https', async () => {
    const tls = await startTestApp({ config: makeConfig({ server: { issuer: 'https://id.acme.test' } }) });
    const response = await tls.app.inject({ method: 'GET', url: '/health/live' });
    assert.equal(response.headers['strict-transport-security'], 'max-age=63072000; includeSubDomains');
  });

  test('request ids are unique per request', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50; i += 1)
      ids.add(String((await app.inject({ method: 'GET', url: '/health/live' })).headers['x-request-id']));
    assert.equal(ids.size, 50);
  });
});

describe('form body parser (fuzz)', () => {
  test('hasControlCharacter finds each C0 control and DEL anywhere in a value, and nothing else', async () => {
    const { hasControlCharacter } = await import('./form-body.ts');
    const controls = [...Array.from({ length: 0x20 }, (_, code) => code), 0x7f].map((code) =>
      String.fromCharCode(code),
    );
    for (const control of controls)
      for (const value of [control, `${control}abc`, `ab${control}c`, `abc${control}`, `${'x'.repeat(2000)}${control}`])
        assert.equal(hasControlCharacter(value), true, JSON.stringify(value));
    for (const value of ['', 'abc', ' ~!"#\\', '\u0080\u00a0\u00e9\u2028\u{1f600}', 'x'.repeat(5000)])
      assert.equal(hasControlCharacter(value), false, JSON.stringify(value));
  });

  test('random bodies either parse to every parameter as sent or raise invalid_request', async () => {
    const { parseFormBody } = await import('./form-body.ts');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what it is for.
    const control = /[\x00-\x1f\x7f]/;
    const { GatehouseError } = await import('./errors.ts');
    const alphabet = ['a', 'b', '=', '&', '%2F', '%00', '%1F', '%7F', '+', '_', '-', 'x', '\u00e9', '\u0000', '"'];
    // Names Object.prototype has: each is a parameter like any other, never a way to reach the prototype.
    alphabet.push('__proto__', 'constructor', 'toString', '%5F_proto__');
    for (let i = 0; i < 5000; i += 1) {
      let body = '';
      for (let j = Math.floor(Math.random() * 40); j > 0; j -= 1)
        body += alphabet[Math.floor(Math.random() * alphabet.length)];
      try {
        const parsed = parseFormBody(body);
        assert.equal(Object.getPrototypeOf(parsed), Object.prototype, JSON.stringify(body));
        // Maps compare without regard to order (an object lists integer-like names first).
        assert.deepEqual(new Map(Object.entries(parsed)), new Map(new URLSearchParams(body)), JSON.stringify(body));
        for (const value of Object.values(parsed)) {
          assert.equal(typeof value, 'string');
          assert.doesNotMatch(value, control, `${JSON.stringify(body)}: no control character gets through`);
        }
      } catch (error) {
        assert.ok(
          error instanceof GatehouseError && error.code === 'invalid_request',
          `${JSON.stringify(body)}: ${error}`,
        );
        // RFC 6749 §5.2's error_description characters, whatever the body held.
        assert.match(error.message, /^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/, JSON.stringify(body));
      }
    }
  });
});
