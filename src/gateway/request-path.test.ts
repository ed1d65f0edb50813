import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GatehouseError } from '../http/errors.ts';
import { gatewayPath } from './request-path.ts';

describe('gateway request path', () => {
  const normalised: [string, string, string][] = [
    ['/app/api/x', '/app/api/x', '/app/api/x'],
    ['/app/api/admin/../x', '/app/api/x', '/app/api/x'],
    ['/app/public/../admin/users', '/app/admin/users', '/app/admin/users'],
    ['/app//api///admin', '/app/api/admin', '/app/api/admin'],
    ['/app/./api/./admin/', '/app/api/admin/', '/app/api/admin/'],
    ['/APP/Api/ADMIN', '/APP/Api/ADMIN', '/app/api/admin'],
    ['/app/api/%61dmin', '/app/api/%61dmin', '/app/api/admin'],
    ['/app/api/%41DMIN', '/app/api/%41DMIN', '/app/api/admin'],
    ['/app/caf%C3%A9', '/app/caf%C3%A9', '/app/café'],
    ['/app/../../..', '/', '/'],
    ['/app/x/..', '/app/', '/app/'],
  ];
  for (const [raw, forward, match] of normalised)
    test(`normalises ${raw} to ${forward}, matched as ${match}`, () => {
      assert.deepEqual(gatewayPath(raw), { forward, match });
    });

  const refused: [string, string][] = [
    ['/app/api/%2e%2e/admin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api/%2E%2E/admin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api%2Fadmin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api%2fadmin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api%5Cadmin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api/%252e%252e/admin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api/%00', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
    ['/app/api\\admin', 'must not contain a backslash'],
    ['/app/api/%zz', 'has a malformed percent-escape'],
    ['/app/api/%C3', 'has a percent-escape that is not UTF-8'],
    ['/app/api/admin;jsessionid=1', 'must not contain ";" (path parameters)'],
    ['/app/api/admin%3Bx', 'must not contain ";" (path parameters)'],
    ['http://upstream/app/x', 'must start with "/"'],
  ];
  for (const [raw, why] of refused)
    test(`refuses ${raw} with invalid_request`, () => {
      assert.throws(
        () => gatewayPath(raw),
        (error: unknown) =>
          error instanceof GatehouseError &&
          error.code === 'invalid_request' &&
          error.message === `The request path ${why}`,
      );
    });
});
