import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomTarget, seededRandom, upstreamReadings } from '../../test/gateway/path-readings.ts';
import { GatehouseError } from '../http/errors.ts';
import { judgeTarget } from './request-path.ts';

const refusedWith = (why: string) => (error: unknown) =>
  error instanceof GatehouseError &&
  error.code === 'invalid_request' &&
  error.status === 400 &&
  error.message === `The request path ${why}`;

describe('gateway request target', () => {
  const normalised: [string, string, string][] = [
    ['/app/api/x', '/app/api/x', '/app/api/x'],
    ['/app/api/admin/../x', '/app/api/x', '/app/api/x'],
    ['/app/public/../admin/users', '/app/admin/users', '/app/admin/users'],
    ['/app//api///admin', '/app/api/admin', '/app/api/admin'],
    ['/app/./api/./admin/', '/app/api/admin/', '/app/api/admin/'],
    ['/APP/Api/ADMIN', '/APP/Api/ADMIN', '/APP/Api/ADMIN'],
    ['/app/api/%61dmin', '/app/api/admin', '/app/api/admin'],
    ['/app/api/%41DMIN', '/app/api/ADMIN', '/app/api/ADMIN'],
    ['/app/%7Euser/a%2db', '/app/~user/a-b', '/app/~user/a-b'],
    ['/app/caf%c3%a9', '/app/caf%C3%A9', '/app/café'],
    ['/app/a%20b/c%2Cd', '/app/a%20b/c%2Cd', '/app/a b/c,d'],
    ['/app/v1.2/file.json', '/app/v1.2/file.json', '/app/v1.2/file.json'],
    ["/app/!$&'()*+,=:@", "/app/!$&'()*+,=:@", "/app/!$&'()*+,=:@"],
    ['/app/../../..', '/', '/'],
    ['/app/x/..', '/app/', '/app/'],
  ];
  for (const [raw, path, decoded] of normalised)
    test(`normalises ${raw} to ${path}, judged as ${decoded}`, () => {
      assert.deepEqual(judgeTarget(raw), { path, decoded, query: '' });
    });

  test('keeps the query as sent, outside the judgement', () => {
    assert.deepEqual(judgeTarget('/app/x/../y?a=%2F..;&b'), {
      path: '/app/y',
      decoded: '/app/y',
      query: '?a=%2F..;&b',
    });
  });

  const encoded = 'must not percent-encode "/", "\\", ".", "%", ";", "?", "#" or control characters';
  const edges = 'must not have a segment that ends in ".", starts with "..", or starts or ends with white space';
  const refused: [string, string][] = [
    // trailing dots: Windows and IIS read admin. and admin.. as admin
    ['/app/api/admin.', edges],
    ['/app/api/admin./x', edges],
    ['/app/api/admin..', edges],
    ['/app/api/...', edges],
    ['/app/api/..admin', edges],
    ['/app/api/admin%20', edges],
    ['/app/api/%20admin', edges],
    ['/app/api/admin%C2%A0', edges],
    // path parameters
    ['/app/api/admin;x=1/y', 'must not contain ";" (path parameters)'],
    ['/app/api/admin;jsessionid=1', 'must not contain ";" (path parameters)'],
    ['/app/api/admin%3Bx', encoded],
    // encoded separators, dots, escapes, query and fragment marks, controls; double encoding
    ['/app/api%2Fadmin', encoded],
    ['/app/api%2fadmin', encoded],
    ['/app/api%5Cadmin', encoded],
    ['/app/api/%2e%2e/admin', encoded],
    ['/app/api/%2E', encoded],
    ['/app/api/%252F', encoded],
    ['/app/api/%252e%252e/admin', encoded],
    ['/app/api/admin%3F', encoded],
    ['/app/api/admin%23', encoded],
    ['/app/api/%00', encoded],
    ['/app/api/admin%0A', encoded],
    ['/app/api/%7F', encoded],
    // backslashes and characters that must be escaped
    ['/app/api\\admin', 'must not contain a backslash'],
    ['/app/api/admin\\', 'must not contain a backslash'],
    ['/app/api/a b', 'has a character that must be percent-encoded (RFC 3986 §3.3)'],
    ['/app/api/{x}', 'has a character that must be percent-encoded (RFC 3986 §3.3)'],
    ['/app/api/x|y', 'has a character that must be percent-encoded (RFC 3986 §3.3)'],
    ['/app/api/caf\u00c3\u00a9', 'has a character that must be percent-encoded (RFC 3986 §3.3)'],
    ['/app/api/\u0000', 'has a character that must be percent-encoded (RFC 3986 §3.3)'],
    // malformed, overlong and non-UTF-8 escapes
    ['/app/api/%zz', 'has a malformed percent-escape'],
    ['/app/api/%4', 'has a malformed percent-escape'],
    ['/app/api/%', 'has a malformed percent-escape'],
    ['/app/api/%C3', 'has a percent-escape that is not UTF-8'],
    ['/app/api/%C0%AE%C0%AE/admin', 'has a percent-escape that is not UTF-8'],
    ['/app/api/%ED%A0%80', 'has a percent-escape that is not UTF-8'],
    ['/app/api/%FF', 'has a percent-escape that is not UTF-8'],
    // Unicode a server could fold into something else
    ['/app/api/ad%E2%80%8Bmin', 'must not contain control or invisible characters'],
    ['/app/api/admin%C2%85', 'must not contain control or invisible characters'],
    [
      '/app/api/%EF%BC%8E%EF%BC%8E/admin',
      'has Unicode characters a server could read as other characters (compatibility or case forms)',
    ],
    [
      '/app/api/adm%C4%B1n',
      'has Unicode characters a server could read as other characters (compatibility or case forms)',
    ],
    [
      '/app/api/%E2%84%AAey',
      'has Unicode characters a server could read as other characters (compatibility or case forms)',
    ],
    [
      '/app/api/cafe%CC%81',
      'has Unicode characters a server could read as other characters (compatibility or case forms)',
    ],
    // not origin form, fragments
    ['http://upstream/app/x', 'must be in origin form, starting with "/"'],
    ['*', 'must be in origin form, starting with "/"'],
    ['/app/api/x#/../admin', 'must not contain a fragment ("#")'],
    ['/app/api/x?y#z', 'must not contain a fragment ("#")'],
  ];
  for (const [raw, why] of refused)
    test(`refuses ${JSON.stringify(raw)} with invalid_request`, () => {
      assert.throws(() => judgeTarget(raw), refusedWith(why));
    });

  test('fuzz: a random target is refused, or every way an upstream may read its canonical path is the judged one', () => {
    const random = seededRandom(0x9a7e);
    let accepted = 0;
    for (let i = 0; i < 20_000; i += 1) {
      const target = randomTarget(random);
      let judged: ReturnType<typeof judgeTarget>;
      try {
        judged = judgeTarget(target);
      } catch (error) {
        assert.ok(error instanceof GatehouseError && error.code === 'invalid_request', `${target}: ${error}`);
        continue;
      }
      accepted += 1;
      assert.deepEqual(judgeTarget(judged.path), { ...judged, query: '' }, `${target}: canonical form is stable`);
      for (const reading of upstreamReadings(judged.path))
        assert.equal(reading, judged.decoded, `${target} forwarded as ${judged.path} can be read as ${reading}`);
    }
    // The generator must exercise both outcomes.
    assert.ok(accepted > 2_000 && accepted < 18_000, `accepted ${accepted}`);
  });
});
