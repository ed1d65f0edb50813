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
  test('once a secret has matched, only that secret matches its HMAC; after rotation only the new one', () => {
    const secret = newClientSecret();
    const stored = clientSecretHmac(key, secret);
    assert.equal(clientSecretMatches(key, secret, stored), true);
    // The second and later checks take the remembered-digest path; it must refuse what the HMAC refuses.
    assert.equal(clientSecretMatches(key, secret, stored), true);
    const sameLength = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    assert.equal(clientSecretMatches(key, sameLength, stored), false);
    assert.equal(clientSecretMatches(key, `${secret}x`, stored), false);
    assert.equal(clientSecretMatches(key, '', stored), false);
    const rotated = newClientSecret();
    const restored = clientSecretHmac(key, rotated);
    assert.equal(clientSecretMatches(key, secret, restored), false);
    assert.equal(clientSecretMatches(key, rotated, restored), true);
    assert.equal(clientSecretMatches(key, rotated, stored), false);
    // What a key remembers does not answer for another key: under it, the HMAC made with the first key is wrong.
    const otherKey = randomBytes(32);
    assert.equal(clientSecretMatches(otherKey, rotated, restored), false);
    assert.equal(clientSecretMatches(otherKey, rotated, clientSecretHmac(otherKey, rotated)), true);
  });
});
