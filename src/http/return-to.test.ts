import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeReturnTo } from './return-to.ts';

describe('safeReturnTo', () => {
  it('keeps local paths with their query', () => {
    for (const path of ['/', '/oauth/authorize?client_id=a&state=b%2Fc', '/account#profile', '/a/b/../c'])
      assert.equal(safeReturnTo(path), path);
  });

  it('falls back to / for anything that could leave the origin', () => {
    for (const value of [
      'https://evil.example/',
      '//evil.example/path',
      '/\\evil.example',
      '\\\\evil.example',
      '/\t/evil.example',
      '/\n/evil.example',
      'javascript:alert(1)',
      'relative/path',
      '',
      `/${'a'.repeat(3000)}`,
      undefined,
      ['/a'],
    ])
      assert.equal(safeReturnTo(value), '/', JSON.stringify(value));
  });
});
