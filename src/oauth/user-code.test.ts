import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { displayUserCode, newUserCode, normalizeUserCode, USER_CODE_ALPHABET, userCodeHash } from './user-code.ts';

describe('device user codes (RFC 8628 §6.1)', () => {
  test('are eight consonants of the twenty-letter alphabet, shown as XXXX-XXXX, and differ', () => {
    const codes = new Set(Array.from({ length: 200 }, newUserCode));
    assert.equal(codes.size, 200);
    for (const code of codes) assert.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(USER_CODE_ALPHABET.length, 20);
    assert.doesNotMatch(USER_CODE_ALPHABET, /[AEIOUY0-9]/);
  });

  test('every letter of the alphabet is drawn', () => {
    const seen = new Set([...Array.from({ length: 300 }, newUserCode).join('')]);
    seen.delete('-');
    assert.equal(seen.size, 20);
  });

  test('typed codes are normalised: case, dashes and spaces do not matter', () => {
    const dashes = ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014'].map((dash) => `WDJB${dash}MJHT`);
    for (const typed of ['WDJB-MJHT', 'wdjb-mjht', 'wdjbmjht', ' WDJB MJHT ', 'wd-jb–mj ht', ...dashes])
      assert.equal(normalizeUserCode(typed), 'WDJBMJHT', typed);
    assert.equal(displayUserCode('WDJBMJHT'), 'WDJB-MJHT');
  });

  test('what cannot be a code is null: wrong length, vowels, digits, other characters', () => {
    for (const typed of [
      '',
      'WDJB-MJH',
      'WDJB-MJHTT',
      'WDJB-MJHA',
      'WDJB-MJH1',
      'WDJB_MJHT',
      'ЖDJB-MJHT',
      'WDJB\u2015MJHT',
    ])
      assert.equal(normalizeUserCode(typed), null, typed);
  });

  test('the stored hash is of the normalised code', () => {
    assert.equal(userCodeHash(normalizeUserCode('wdjb mjht') as string), userCodeHash('WDJBMJHT'));
    assert.notEqual(userCodeHash('WDJBMJHT'), userCodeHash('WDJBMJHC'));
  });
});
