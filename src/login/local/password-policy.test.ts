import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatehouseError } from '../../http/errors.ts';
import { assertPasswordAllowed } from './password-policy.ts';

const rules = { minLength: 12, maxLength: 128 };
const problemOf = (password: string, subject = 'ana@acme.test') => {
  try {
    assertPasswordAllowed(password, rules, subject);
    return null;
  } catch (error) {
    assert.ok(error instanceof GatehouseError);
    assert.equal(error.code, 'weak_password');
    return error.fields?.[0]?.problem ?? null;
  }
};

describe('password policy', () => {
  it('accepts a long uncommon passphrase', () => {
    assert.equal(problemOf('lantern orchard quietly 47'), null);
  });

  it('refuses passwords outside 12-128 characters, counting characters not bytes', () => {
    assert.equal(problemOf('short words'), 'must be at least 12 characters');
    assert.equal(problemOf('x'.repeat(129)), 'must be at most 128 characters');
    assert.equal(problemOf('ééééééééééé'), 'must be at least 12 characters');
  });

  it('refuses listed common passwords in any case, also with digits or symbols appended', () => {
    for (const password of ['qwertyuiop123', 'Password1234', 'iloveyou2024!!', 'DRAGON123456', 'aaaaaaaaaaaa'])
      assert.equal(problemOf(password), 'is too common or too easy to guess; choose another', password);
  });

  it('refuses the sign-in email as the password', () => {
    assert.equal(
      problemOf('ana.lopez@acme.test', 'ana.lopez@acme.test'),
      'is too common or too easy to guess; choose another',
    );
    assert.equal(
      problemOf('ana.lopez2024!', 'ana.lopez@acme.test'),
      'is too common or too easy to guess; choose another',
    );
  });
});
