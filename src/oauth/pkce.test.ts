import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isCodeChallenge, isCodeVerifier, s256Challenge } from './pkce.ts';

describe('PKCE S256', () => {
  test('computes the RFC 7636 Appendix B challenge', () => {
    assert.equal(
      s256Challenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'),
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });
  test('accepts only well-formed verifiers and challenges', () => {
    assert.equal(isCodeVerifier('a'.repeat(43)), true);
    assert.equal(isCodeVerifier('a'.repeat(42)), false);
    assert.equal(isCodeVerifier('a'.repeat(129)), false);
    assert.equal(isCodeVerifier(`${'a'.repeat(43)}+`), false);
    assert.equal(isCodeChallenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), true);
    assert.equal(isCodeChallenge('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c='), false);
  });
});
