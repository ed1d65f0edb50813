import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { assertSameOriginJson, isSameOrigin } from './csrf.ts';
import { GatehouseError } from './errors.ts';

const ISSUER = 'https://id.acme.test';
const request = (headers: Record<string, string>, method = 'POST') =>
  ({ method, headers }) as unknown as FastifyRequest;

describe('CSRF origin rule', () => {
  const cases: [string, Record<string, string>, boolean][] = [
    ['our Origin', { origin: ISSUER }, true],
    ['another Origin', { origin: 'https://evil.example' }, false],
    [
      'another Origin even with a same-origin fetch site',
      { origin: 'https://evil.example', 'sec-fetch-site': 'same-origin' },
      false,
    ],
    [
      'Origin null from a no-referrer page, same-origin fetch site',
      { origin: 'null', 'sec-fetch-site': 'same-origin' },
      true,
    ],
    ['Origin null, cross-site', { origin: 'null', 'sec-fetch-site': 'cross-site' }, false],
    ['no Origin, same-origin fetch site', { 'sec-fetch-site': 'same-origin' }, true],
    ['no Origin, same-site (a sibling subdomain)', { 'sec-fetch-site': 'same-site' }, false],
    ['neither header', {}, false],
  ];
  for (const [name, headers, expected] of cases)
    test(`${name}: ${expected ? 'same origin' : 'refused'}`, () =>
      assert.equal(isSameOrigin(request(headers), ISSUER), expected));

  test('JSON endpoints refuse other bodies with 415 before the origin, cross-site JSON with 403, and pass safe methods', () => {
    const refused = (r: FastifyRequest, code: string, status: number) =>
      assert.throws(
        () => assertSameOriginJson(r, ISSUER),
        (e: unknown) => e instanceof GatehouseError && e.code === code && e.status === status,
      );
    refused(
      request({ origin: ISSUER, 'content-type': 'application/x-www-form-urlencoded' }),
      'unsupported_media_type',
      415,
    );
    refused(request({ origin: ISSUER, 'content-type': 'text/plain' }), 'unsupported_media_type', 415);
    refused(
      request({ origin: 'https://evil.example', 'content-type': 'multipart/form-data; boundary=x' }),
      'unsupported_media_type',
      415,
    );
    refused(request({ origin: ISSUER }), 'unsupported_media_type', 415);
    refused(request({ origin: 'https://evil.example', 'content-type': 'application/json' }), 'csrf_rejected', 403);
    assert.doesNotThrow(() =>
      assertSameOriginJson(request({ origin: ISSUER, 'content-type': 'application/json; charset=utf-8' }), ISSUER),
    );
    assert.doesNotThrow(() => assertSameOriginJson(request({}, 'GET'), ISSUER));
  });
});
