// An invitation puts an unverified address on an identity that has no way in yet: its emailed link is how the
// mailbox owner sets the password (admin/invitations.ts). A sign-up of that address by anyone else must neither take
// the invitation's place nor keep the link from working (DESIGN.md "An unverified address gives nobody control").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { JSON_HEADERS, signIn } from '../helpers/accounts.ts';
import type { TestApp } from '../helpers/app.ts';
import { assertEnvelope, type DevMailboxApp, startDevMailboxApp } from '../helpers/dev-mailbox.ts';
import { proof, verificationLink } from '../helpers/mailbox.ts';

const INVITEE_PASSWORD = 'the invited person chose this 6620';
const ATTACKER_PASSWORD = 'someone else entirely 5527';

async function invite(harness: DevMailboxApp, email: string) {
  const response = await harness.t.app.inject({
    method: 'POST',
    url: '/admin/identities',
    headers: { ...JSON_HEADERS, cookie: harness.admin.cookie },
    payload: { email, roles: ['member'] },
  });
  assert.equal(response.statusCode, 201, response.body);
  assert.equal((response.json() as { enrollment: { delivery: string } }).enrollment.delivery, 'dev_mailbox');
  await harness.mailbox(email); // delivered now, so later messages are newer
  return (response.json() as { sub: string }).sub;
}

/** POST /auth/enroll with the token of the invitation message's link. */
function enroll(t: TestApp, text: string, password: string) {
  const token = /#token=([\w-]+)/.exec(text)?.[1] ?? '';
  return t.app.inject({ method: 'POST', url: '/auth/enroll', headers: JSON_HEADERS, payload: { token, password } });
}

describe('POST /account/signup for an invited address', () => {
  test('a sign-up after the invitation gets the usual answer, the invitee a notice, and the link still works', async () => {
    const harness = await startDevMailboxApp();
    const { t, mailbox, post } = harness;
    const email = 'invitee@acme-robotics.dev';
    const sub = await invite(harness, email);
    const signup = await post('/account/signup', { email, password: ATTACKER_PASSWORD, display_name: 'Attacker' });
    assert.equal(signup.statusCode, 201, signup.body);
    const { identity_id } = signup.json() as { identity_id: string };
    assert.deepEqual(signup.json(), { identity_id, verification_required: true });
    assert.equal((await t.sql`select 1 from identities where id = ${identity_id}`).length, 0, 'a decoy id');

    const messages = await mailbox(email);
    assert.deepEqual(
      messages.map((m) => m.template),
      ['signup_attempt_notice', 'invitation'],
    );
    const enrolled = await enroll(t, messages[1]?.text ?? '', INVITEE_PASSWORD);
    assert.equal(enrolled.statusCode, 200, enrolled.body);
    assert.deepEqual(enrolled.json(), {
      aal: 'aal1',
      amr: ['pwd'],
      enrollment_required: true,
      second_factor_required: false,
    });
    const [owner] = await t.sql`select identity_id from sign_in_methods where external_subject = ${email}`;
    assert.equal(owner?.identity_id, sub, 'the invited identity signs in with the address');
    assert.equal((await signIn(t.app, email, { password: ATTACKER_PASSWORD })).response.statusCode, 401);
  });

  test("an invitation replaces a pending sign-up, so the sign-up's link and password are dead", async () => {
    const harness = await startDevMailboxApp();
    const { t, mailbox, post } = harness;
    const email = 'early@acme-robotics.dev';
    await post('/account/signup', { email, password: ATTACKER_PASSWORD, display_name: 'Attacker' });
    const [signupMail] = await mailbox(email);
    assert.equal(signupMail?.template, 'signup_verification');
    await invite(harness, email);
    const [invitation] = await mailbox(email);
    assert.equal(invitation?.template, 'invitation');
    assertEnvelope(
      await post('/account/email/verify', { ...proof(verificationLink(signupMail?.text ?? '')) }),
      400,
      'verification_invalid',
      'The verification id or secret is not valid.',
    );
    assert.equal((await enroll(t, invitation?.text ?? '', INVITEE_PASSWORD)).statusCode, 200);
    assert.equal((await signIn(t.app, email, { password: ATTACKER_PASSWORD })).response.statusCode, 401);
    assert.equal((await signIn(t.app, email, { password: INVITEE_PASSWORD })).response.statusCode, 200);
  });

  test("once the invitation's link has expired, the address blocks a sign-up no longer", async () => {
    const harness = await startDevMailboxApp();
    const { t, post } = harness;
    const email = 'lapsed@acme-robotics.dev';
    await invite(harness, email);
    t.clock.advance(7 * 86_400 + 1);
    const signup = await post('/account/signup', { email, password: INVITEE_PASSWORD, display_name: 'Owner' });
    assert.equal(signup.statusCode, 201, signup.body);
    // A real pending sign-up this time (the owner's session that reads the mailbox has lapsed with the week).
    const { identity_id } = signup.json() as { identity_id: string };
    const [created] = await t.sql`select state from identities where id = ${identity_id}`;
    assert.equal(created?.state, 'pending_verification');
  });
});
