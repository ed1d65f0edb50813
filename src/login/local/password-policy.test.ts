import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeConfig } from '../../../test/helpers/config.ts';
import { GatehouseError } from '../../http/errors.ts';
import { assertPasswordAllowed, contextWords, type PasswordOwner } from './password-policy.ts';

const settings = makeConfig({ organization: { id: 'acme-rob', name: 'Acme Robotics' } });
const ana: PasswordOwner = { email: 'ana.lopez@example.org', displayName: 'Ana Lopez' };

/** The refusal as the envelope carries it: [error_description, fields], or null when the password is allowed. */
async function refusal(password: string, owner = ana, minimumScore = 3) {
  const rules = { ...settings, passwords: { ...settings.passwords, minimum_score: minimumScore } };
  try {
    await assertPasswordAllowed(password, rules, owner);
    return null;
  } catch (error) {
    assert.ok(error instanceof GatehouseError);
    assert.equal(error.code, 'weak_password');
    return [error.message, error.fields];
  }
}

const refused = (problem: string) => [`Password: ${problem}.`, [{ path: 'body.password', problem }]];

describe('password policy', () => {
  it('accepts a passphrase of a few uncommon words', async () => {
    assert.equal(await refusal('lantern orchard quietly 47'), null);
    assert.equal(await refusal('vivid trellis ocean brass'), null);
  });

  it('refuses passwords outside 12-128 characters, counting characters not bytes', async () => {
    assert.deepEqual(await refusal('short words'), refused('use at least 12 characters'));
    assert.deepEqual(await refusal('x'.repeat(129)), refused('use at most 128 characters'));
    assert.deepEqual(await refusal('ééééééééééé'), refused('use at least 12 characters'));
  });

  it('refuses a repeated common word, saying why and what to do', async () => {
    assert.deepEqual(
      await refusal('passwordpassword'),
      refused(
        'repeated character patterns like "abcabcabc" are easy to guess; add more words that are less common; ' +
          'avoid repeated words and characters',
      ),
    );
  });

  it('refuses common passwords and their variants', async () => {
    assert.deepEqual(
      await refusal('qwertyuiop123'),
      refused('this is similar to a commonly used password; add more words that are less common'),
    );
    for (const password of ['Password1234', 'DRAGON123456', 'aaaaaaaaaaaa', 'p4$$w0rdp4$$w0rd', 'qazwsxedcrfv'])
      assert.notEqual(await refusal(password), null, password);
  });

  it('refuses passwords built from the service, the organization, the email or the name', async () => {
    const personal = refused(
      'this contains your name or email address, or the name of this service or organization; ' +
        'add more words that are less common',
    );
    for (const password of [
      'gatehouse12345',
      'acmerobotics2024',
      'acme-rob2024',
      'AcmeRob12345',
      'ana.lopez2024!',
      'ana.lopez@example.org',
      'AnaLopez1990',
    ])
      assert.deepEqual(await refusal(password), personal, password);
    // The same password for someone else, at another organization, is not personal.
    const other = makeConfig({ organization: { id: 'zenith', name: 'Zenith' } });
    for (const password of ['acmerobotics2024', 'quorvath2024'])
      await assertPasswordAllowed(password, other, { email: 'kim@example.org' });
  });

  it('follows passwords.minimum_score', async () => {
    assert.equal(await refusal('passwordpassword', ana, 0), null, '0 keeps only the length limits');
    assert.deepEqual(await refusal('short words', ana, 0), refused('use at least 12 characters'));
    assert.equal(await refusal('Winter2024!!', ana, 3), null);
    assert.deepEqual(
      await refusal('Winter2024!!', ana, 4),
      refused('this is too easy to guess; add another word or two'),
    );
  });

  it('judges the first 64 characters: a guessable start is refused, a strong start is enough', async () => {
    assert.notEqual(await refusal(`${'a'.repeat(64)} lantern orchard quietly 47`), null);
    assert.equal(await refusal(`lantern orchard quietly 47 ${'a'.repeat(90)}`), null);
  });

  it('makes context words of each value, its words and the words run together', () => {
    assert.deepEqual(contextWords(['Acme Robotics', 'ana.lopez', null, '', 'Jo Li']), [
      'acme robotics',
      'acme',
      'robotics',
      'acmerobotics',
      'ana.lopez',
      'ana',
      'lopez',
      'analopez',
      'jo li',
    ]);
  });
});
