import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseScope } from './scopes.ts';

describe('scope parameter (RFC 6749 §3.3)', () => {
  test('splits into distinct scope-tokens', () => {
    assert.deepEqual(parseScope('openid profile openid'), ['openid', 'profile']);
    assert.deepEqual(parseScope(''), []);
    assert.deepEqual(parseScope(undefined), []);
    assert.deepEqual(parseScope('orders:read'), ['orders:read']);
  });
  test('refuses malformed tokens', () => {
    assert.equal(parseScope('a  b'), null);
    assert.equal(parseScope('a"b'), null);
    assert.equal(parseScope('a\\b'), null);
    assert.equal(parseScope('é'), null);
  });
});
