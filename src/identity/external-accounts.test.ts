import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { testSecrets } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { createAudit } from '../audit/audit.ts';
import {
  type ExternalAccount,
  plainEmail,
  providerDisplayName,
  signInWithExternalAccount,
} from './external-accounts.ts';
import { findPrimaryEmail } from './store.ts';

describe("a provider's email address on a new identity", async () => {
  const { sql } = await createTestDatabase();
  const audit = createAudit(sql, testSecrets().audit);
  const context = { actor: null, clientIp: '192.0.2.1', requestId: 'req-test' };
  // A new account at the provider each time, claiming `address`.
  const accountWith = (address: string, verified = true): ExternalAccount => ({
    kind: 'federated',
    provider: 'corp',
    subject: `corp-${randomUUID()}`,
    label: 'someone',
    displayName: 'Some One',
    email: { address, verified },
  });
  const signIn = (account: ExternalAccount) =>
    signInWithExternalAccount(sql, audit, context, account, { signUp: true }, new Date());
  const signUp = async (address: string) => {
    const result = await signIn(accountWith(address));
    assert.equal(result.outcome, 'created');
    if (result.outcome !== 'created') throw new Error('not created');
    const [created] = await sql`
      select details from audit_events where event = 'signup.created' and subject = ${result.identityId}`;
    return { email: await findPrimaryEmail(sql, result.identityId), details: created?.details as object };
  };

  it('keeps a plain address, trimmed, and one on a single-label domain', async () => {
    const plain = await signUp('  Ada.Lovelace@Example.org ');
    assert.equal(plain.email?.address, 'Ada.Lovelace@Example.org');
    assert.deepEqual(plain.details, { method: 'federated', provider: 'corp' });
    assert.equal((await signUp('ops@intranet')).email?.address, 'ops@intranet');
  });

  for (const [why, address] of [
    ['a space inside', 'ada lovelace@example.org'],
    ['a quoted local part', '"ada"@example.org'],
    ['a control character', 'ada\u0007@example.org'],
    ['a newline (header injection)', 'ada@example.org\r\nBcc: all@example.org'],
    ['a local part over 64 characters', `${'a'.repeat(65)}@example.org`],
    ['over 254 characters', `ada@${Array.from({ length: 5 }, () => 'd'.repeat(60)).join('.')}.org`],
    ['a non-ASCII local part', 'adä@example.org'],
    ['no @ at all', 'ada'],
  ] as const)
    it(`leaves out an address with ${why}, and says so in the audit record`, async () => {
      const { email, details } = await signUp(address);
      assert.equal(email, null);
      assert.deepEqual(details, { method: 'federated', provider: 'corp', provider_email: 'not_plain' });
    });

  it('still refuses an address verified at another identity as email_in_use, spaces around it or not', async () => {
    await signUp('taken@example.org');
    for (const address of ['taken@example.org', ' taken@example.org ']) {
      const result = await signIn(accountWith(address));
      assert.equal(result.outcome, 'email_in_use');
    }
  });

  it('refuses as email_in_use an address verified at an identity made before addresses were filtered', async () => {
    const id = `usr_${randomUUID()}`;
    await sql`insert into identities (id, state, display_name, assurance) values (${id}, 'active', 'Old', 'ial1')`;
    await sql`insert into emails (identity_id, address, normalized, is_primary, verified_at)
              values (${id}, 'old one@example.org', 'old one@example.org', true, now())`;
    assert.equal((await signIn(accountWith('old one@example.org'))).outcome, 'email_in_use');
  });

  it('takes the provider\u2019s name without invisible or direction-changing characters, bounded', async () => {
    const account = { ...accountWith('named@example.org'), displayName: ' \u202Emoc.elgoog\u200B Ada\u0000 ' };
    const result = await signIn(account);
    assert.equal(result.outcome, 'created');
    const [row] =
      await sql`select display_name from identities where id = ${(result as { identityId: string }).identityId}`;
    assert.equal(row?.display_name, 'moc.elgoog Ada');
    assert.equal(providerDisplayName('\u{1F600}'.repeat(250)), '\u{1F600}'.repeat(200));
  });

  it('plainEmail keeps the provider\u2019s verified flag and passes no email through as none', () => {
    assert.deepEqual(plainEmail({ address: 'a@b.example', verified: false }), {
      address: 'a@b.example',
      verified: false,
    });
    assert.equal(plainEmail(null), null);
  });
});
