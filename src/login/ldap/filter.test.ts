import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { escapeFilterValue, fillFilter } from './filter.ts';

describe('LDAP filter escaping (RFC 4515 §3)', () => {
  test('escapes the filter metacharacters of an injection attempt', () => {
    assert.equal(fillFilter('(uid={subject})', { subject: '*)(uid=*' }), '(uid=\\2a\\29\\28uid=\\2a)');
    assert.equal(escapeFilterValue('a\\b\0c'), 'a\\5cb\\00c');
  });

  test('leaves no unescaped metacharacter in any random value and keeps it reversible', () => {
    const alphabet = '*()\\\0abc=&|!~<>é ';
    for (let round = 0; round < 2000; round++) {
      const value = [...randomBytes(12)].map((b) => alphabet[b % alphabet.length]).join('');
      const escaped = escapeFilterValue(value);
      assert.doesNotMatch(escaped, /[*()\0]/);
      // Every backslash starts an escape of exactly two hex digits.
      assert.doesNotMatch(escaped, /\\(?![0-9a-f]{2})/);
      assert.equal(
        escaped.replace(/\\([0-9a-f]{2})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
        value,
      );
    }
  });

  test('fills only known placeholders', () => {
    assert.equal(
      fillFilter('(&(member={dn})(cn={other}))', { dn: 'uid=a,dc=x' }),
      '(&(member=uid=a,dc=x)(cn={other}))',
    );
  });
});
