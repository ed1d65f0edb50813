import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sha256, tokenHash } from './primitives.ts';

test('sha256 gives the SHA-256 digest bytes for any input: strings of any script, and random buffers', () => {
  const inputs: (string | Buffer)[] = ['', 'abc', 'gr\u00fc\u00dfe \u4f60\u597d \u{1f510}', 'x'.repeat(10_000)];
  for (let i = 0; i < 500; i += 1) {
    inputs.push(randomBytes(i % 97));
    inputs.push(randomBytes(i % 61).toString('latin1'));
  }
  for (const input of inputs) {
    const expected = createHash('sha256').update(input).digest();
    assert.deepEqual(sha256(input), expected);
    if (typeof input === 'string') assert.equal(tokenHash(input), expected.toString('base64url'));
  }
});
