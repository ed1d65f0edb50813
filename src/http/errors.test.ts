import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { echoInput } from './errors.ts';

// RFC 6749 §5.2: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E ).
const DESCRIPTION_CHARS = /^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/;

describe('echoInput', () => {
  test('keeps what the RFC allows and replaces the rest with "?"', () => {
    assert.equal(echoInput('password'), 'password');
    assert.equal(echoInput('a"b\\c'), 'a?b?c');
    assert.equal(echoInput('é\u0000\n😀'), '?????');
    assert.equal(echoInput('x'.repeat(100)), `${'x'.repeat(64)}...`);
  });

  test('any input comes out within the allowed characters and length (fuzzed)', () => {
    for (let i = 0; i < 2000; i += 1) {
      const input = randomBytes(1 + (i % 200)).toString(i % 2 === 0 ? 'latin1' : 'utf8');
      const shown = echoInput(input);
      assert.match(shown, DESCRIPTION_CHARS, JSON.stringify(input));
      assert.ok(shown.length <= 67, JSON.stringify(input));
    }
  });
});
