// An email change puts an unverified address on an identity until its link is used (DESIGN.md "An unverified address
// gives nobody control"). The attacker asks to move their own account to the victim's address; the victim, who may
// be expecting a message of their own, opens the link. That click must not hand the attacker a verified address (and
// with it the password sign-in, the reset mail and the "already registered" answer to the victim's own sign-up).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount, signIn, totpCode } from '../helpers/accounts.ts';
import { assertEnvelope, startDevMailboxApp } from '../helpers/dev-mailbox.ts';
import { proof, verificationLink } from '../helpers/mailbox.ts';

describe('POST /account/email/change/verify', () => {
  test("the victim's click on a change the attacker asked for is refused, signed out or signed in as themselves", async () => {
    const { t, mailbox, post } = await startDevMailboxApp();
    const attacker = await makeAccount(t.sql, t.secrets, t.config, { email: 'attacker@acme-robotics.dev' });
    const victim = await makeAccount(t.sql, t.secrets, t.config, { email: 'victim@elsewhere.dev' });
    const session = async (account: typeof attacker) => {
      t.clock.advance(30);
      const signedIn = await signIn(t.app, account.email, {
        password: account.password,
        totp: totpCode(account.totpSeed ?? '', t.clock.now()),
      });
      assert.equal(signedIn.response.statusCode, 200, signedIn.response.body);
      return signedIn.session;
    };
    const attackers = await session(attacker);
    const started = await post(
      '/account/email/change',
      { new_email: 'victim-inbox@elsewhere.dev', password: attacker.password },
      attackers,
    );
    assert.equal(started.statusCode, 202, started.body);
    const [mail] = await mailbox('victim-inbox@elsewhere.dev');
    assert.equal(mail?.template, 'email_change_verification');
    const link = verificationLink(mail?.text ?? '');

    assertEnvelope(await post('/account/email/change/verify', proof(link)), 401, 'login_required', 'Sign in first.');
    assertEnvelope(
      await post('/account/email/change/verify', proof(link), await session(victim)),
      400,
      'verification_invalid',
      'This link changes the address of another account: sign in as that account to use it.',
    );

    // Nothing changed: the victim's address is on no account but the victim's, and the link was not even tried.
    const emails = await t.sql`
      select identity_id, address, verified_at is not null as verified from emails where normalized like '%elsewhere.dev'`;
    assert.deepEqual(
      emails.map((row) => ({ ...row })),
      [{ identity_id: victim.sub, address: 'victim@elsewhere.dev', verified: true }],
    );
    const [row] = await t.sql`select attempts, consumed_at from verifications where id = ${link.verification_id}`;
    assert.deepEqual({ ...row }, { attempts: 0, consumed_at: null });
    assert.equal(
      (await signIn(t.app, 'victim-inbox@elsewhere.dev', { password: attacker.password })).response.statusCode,
      401,
      "the attacker's password does not sign in with the victim's address",
    );
  });
});

describe('POST /account/email/change/verify to an address someone signed up and never verified', () => {
  test('the account that asked gets the address; the pending sign-up and its password are gone', async () => {
    const { t, mailbox, post } = await startDevMailboxApp();
    const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'mover@acme-robotics.dev' });
    const address = 'new-home@elsewhere.dev';
    // Someone else signs up the address the person is about to move to.
    const squatter = 'someone else entirely 5527';
    const signup = await post('/account/signup', { email: address, password: squatter, display_name: 'Squatter' });
    assert.equal(signup.statusCode, 201, signup.body);
    const pending = (signup.json() as { identity_id: string }).identity_id;
    await mailbox(address);

    t.clock.advance(30);
    const signedIn = await signIn(t.app, person.email, {
      password: person.password,
      totp: totpCode(person.totpSeed ?? '', t.clock.now()),
    });
    const started = await post(
      '/account/email/change',
      { new_email: address, password: person.password },
      signedIn.session,
    );
    assert.equal(started.statusCode, 202, started.body);
    const [mail] = await mailbox(address);
    assert.equal(mail?.template, 'email_change_verification');
    const done = await post(
      '/account/email/change/verify',
      proof(verificationLink(mail?.text ?? '')),
      signedIn.session,
    );
    assert.equal(done.statusCode, 200, done.body);
    assert.deepEqual(done.json(), { email: address });
    assert.equal((await t.sql`select 1 from identities where id = ${pending}`).length, 0, 'the sign-up is gone');
    assert.equal((await signIn(t.app, address, { password: squatter })).response.statusCode, 401);
    t.clock.advance(30);
    const moved = await signIn(t.app, address, {
      password: person.password,
      totp: totpCode(person.totpSeed ?? '', t.clock.now()),
    });
    assert.equal(moved.response.statusCode, 200, 'the person signs in with the new address');
  });
});
