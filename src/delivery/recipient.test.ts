import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { toGatehouseError } from '../http/error-envelope.ts';
import { acceptsLocalAddresses, checkRecipient, InvalidRecipient, recipientDomain } from './recipient.ts';

describe('recipient addresses', () => {
  test('accepts plain addresses, trimmed', () => {
    assert.equal(checkRecipient('  Zoe.Smith+id@Mail.Acme.dev '), 'Zoe.Smith+id@Mail.Acme.dev');
    assert.equal(recipientDomain('Zoe@Mail.Acme.dev'), 'mail.acme.dev');
  });

  test('refuses display names, header or command injection, and over-long addresses (RFC 5321 §4.5.3.1)', () => {
    for (const address of [
      'Zoe <zoe@acme.dev>',
      'zoe@acme.dev\r\nBcc: all@acme.dev',
      'zoe@acme.dev>\r\nRCPT TO:<x@y.dev',
      `${'a'.repeat(65)}@acme.dev`,
      `a@${Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.')}.dev`, // 311 characters
      'zoe@localhost',
      'zoe@-acme.dev',
      '',
    ])
      assert.throws(() => checkRecipient(address), { name: 'InvalidRecipient' }, JSON.stringify(address));
  });
});

describe('single-label domains (name@localhost)', () => {
  test('are accepted only where the rule allows them, and the rest of the rule still holds', () => {
    assert.equal(checkRecipient('owner@localhost', { localAddresses: true }), 'owner@localhost');
    assert.throws(() => checkRecipient('owner@localhost'), { name: 'InvalidRecipient' });
    for (const bad of ['Zoe <zoe@localhost>', 'zoe@-localhost', 'jürgen@localhost', 'a\u202e@localhost'])
      assert.throws(() => checkRecipient(bad, { localAddresses: true }), { name: 'InvalidRecipient' }, bad);
  });

  test('are allowed by a loopback issuer (development) and not by a public one', () => {
    assert.equal(acceptsLocalAddresses('http://localhost:8080'), true);
    assert.equal(acceptsLocalAddresses('http://127.0.0.1:8090'), true);
    assert.equal(acceptsLocalAddresses('http://[::1]:8080'), true);
    assert.equal(acceptsLocalAddresses('https://id.acme-robotics.dev'), false);
    assert.equal(acceptsLocalAddresses('https://localhost.acme-robotics.dev'), false);
  });
});

describe('InvalidRecipient at the error envelope', () => {
  test('becomes 400 invalid_request, never a 500, wherever it escapes from', () => {
    const error = toGatehouseError(new InvalidRecipient());
    assert.deepEqual(
      { code: error.code, status: error.status, description: error.publicDescription },
      { code: 'invalid_request', status: 400, description: 'The email address is not a plain deliverable address' },
    );
  });
});
