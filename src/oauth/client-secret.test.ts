import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { hmac } from '../crypto/primitives.ts';
import { clientSecretHmac, clientSecretMatches, newClientSecret } from './client-secret.ts';

describe('client secrets', () => {
  const key = randomBytes(32);
  test('are stored as HMAC-SHA256 under the client-secret key', () => {
    const secret = newClientSecret();
    assert.equal(clientSecretHmac(key, secret), hmac(key, 'client-secret:', secret).toString('base64url'));
    assert.notEqual(clientSecretHmac(randomBytes(32), secret), clientSecretHmac(key, secret));
  });
  test('match only the exact secret', () => {
    const secret = newClientSecret();
    const stored = clientSecretHmac(key, secret);
    assert.equal(clientSecretMatches(key, secret, stored), true);
    assert.equal(clientSecretMatches(key, `${secret}x`, stored), false);
    assert.equal(clientSecretMatches(key, '', stored), false);
  });
});
