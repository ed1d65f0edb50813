// A redirect provider that vouches for an account but not for its address (`email_verified: false`) puts an
// unverified address on the identity it creates (DESIGN.md "An unverified address gives nobody control"). Whoever
// holds that provider account must gain nothing over the address: its owner still signs up, verifies and recovers
// their own account, and the provider's identity never becomes the address's verified holder.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { signIn } from '../helpers/accounts.ts';
import { devMailboxOf } from '../helpers/dev-mailbox.ts';
import { roundTrip, startDownstream, startUpstream, upstreamPerson } from '../helpers/federation.ts';
import { proof, verificationLink } from '../helpers/mailbox.ts';

describe('a redirect provider account with an unverified email address', async () => {
  const upstream = await startUpstream();
  const down = await startDownstream(upstream, () => ({
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox', from: 'Acme Robotics <no-reply@acme-robotics.dev>' },
  }));
  const { mailbox, post } = await devMailboxOf(down);

  test("creates an identity that holds the address unverified, and the mailbox owner's own account stays theirs", async () => {
    const email = 'owner-of-this@corp.dev';
    // The attacker's account at the provider claims the owner's address, which the provider did not verify.
    const attacker = await upstreamPerson(upstream, email, 'Attacker');
    await upstream.sql`update emails set verified_at = null where identity_id = ${attacker.sub}`;
    const { done } = await roundTrip(down, attacker.cookie);
    assert.equal(done.status, 303);
    const [created] = await down.sql<{ identity_id: string; verified: boolean }[]>`
      select e.identity_id, e.verified_at is not null as verified from emails e
      join sign_in_methods m on m.identity_id = e.identity_id and m.kind = 'federated'
      where e.normalized = ${email}`;
    assert.deepEqual({ ...created }, { identity_id: created?.identity_id, verified: false });

    // Nothing to recover for the address: the provider's identity has no password, so no reset message goes out.
    assert.equal((await post('/account/password/forgot', { email })).statusCode, 202);
    assert.deepEqual(await mailbox(email), []);

    // The owner signs up: a real sign-up (the unverified address blocks nothing), confirmed with their password.
    const password = 'the real owner of the inbox 2291';
    const signup = await post('/account/signup', { email, password, display_name: 'Owner' });
    assert.equal(signup.statusCode, 201, signup.body);
    const { identity_id } = signup.json() as { identity_id: string };
    const [message] = await mailbox(email);
    assert.equal(message?.template, 'signup_verification');
    const verified = await post('/account/email/verify', {
      ...proof(verificationLink(message?.text ?? '')),
      password,
    });
    assert.deepEqual(verified.json(), { identity_id, email_verified: true, password_set: true });
    const origin = { headers: { origin: new URL(down.config.server.issuer).origin } };
    assert.equal((await signIn(down.app, email, { password }, origin)).response.statusCode, 200);

    // The address is verified at the owner's identity only; a reset now goes for the owner's account.
    const holders = await down.sql<{ identity_id: string; verified: boolean }[]>`
      select identity_id, verified_at is not null as verified from emails where normalized = ${email} order by id`;
    assert.deepEqual(
      holders.map((row) => ({ ...row })),
      [
        { identity_id: created?.identity_id, verified: false },
        { identity_id, verified: true },
      ],
    );
    assert.equal((await post('/account/password/forgot', { email })).statusCode, 202);
    const [reset] = await mailbox(email);
    assert.equal(reset?.template, 'password_reset');
    const [issued] = await down.sql`
      select identity_id from verifications where id = ${verificationLink(reset?.text ?? '').verification_id}`;
    assert.equal(issued?.identity_id, identity_id);
  });
});
