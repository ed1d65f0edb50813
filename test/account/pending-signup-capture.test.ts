// The outside review's takeover (DESIGN.md "An unverified address gives nobody control"): someone signs up with an
// address they do not own, and the owner's click on the emailed link must never activate that person's password.
// Both orders are played through the real HTTP interface, with the messages read from the development mailbox as
// the console's Mailbox page shows them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Sub } from '../../src/identity/ids.ts';
import { insertSignInMethod } from '../../src/identity/store.ts';
import { confirmTotp, upsertPendingTotp } from '../../src/login/local/credential-store.ts';
import { newTotpSeed } from '../../src/login/local/totp.ts';
import { insertPasskeyCredential } from '../../src/login/passkey/store.ts';
import { sessionCookieFor, signIn } from '../helpers/accounts.ts';
import type { TestApp } from '../helpers/app.ts';
import { assertEnvelope, startDevMailboxApp } from '../helpers/dev-mailbox.ts';
import { proof, verificationLink } from '../helpers/mailbox.ts';
import { makeClient } from '../helpers/oauth-fixtures.ts';

const VICTIM_PASSWORD = 'the owner of this mailbox 8812';
const ATTACKER_PASSWORD = 'someone else entirely 5527';

async function start() {
  const harness = await startDevMailboxApp();
  const { t, mailbox } = harness;
  const post = (url: string, payload: object) => harness.post(url, payload);
  /** Signs up and lets its message arrive. */
  const signUp = async (email: string, password: string, name: string) => {
    const response = await post('/account/signup', { email, password, display_name: name });
    assert.equal(response.statusCode, 201, response.body);
    await mailbox(email);
    return (response.json() as { identity_id: string }).identity_id;
  };
  return { t, mailbox, signUp, post };
}

const MISMATCH =
  'This link belongs to a sign-up with another password. Type the password you chose when you signed up, or ' +
  'choose a new password if this sign-up was not yours.';

/** Whether a password sign-in gets as far as a session (enrollment-only, as a new account's first sign-in is). */
const signsIn = async (t: TestApp, email: string, password: string) =>
  (await signIn(t.app, email, { password })).response.statusCode === 200;

describe('POST /account/email/verify after two sign-ups for one address', () => {
  test("the victim signs up first: the newest link, used as the page sent it before, does not activate the attacker's password", async () => {
    const { t, mailbox, signUp, post } = await start();
    const email = 'victim@acme-robotics.dev';
    await signUp(email, VICTIM_PASSWORD, 'Victim');
    await signUp(email, ATTACKER_PASSWORD, 'Attacker');
    const messages = await mailbox(email);
    assert.deepEqual(
      messages.map((m) => m.template),
      ['signup_verification', 'signup_verification'],
      'the mailbox holds two identical-looking messages',
    );
    const newest = verificationLink(messages[0]?.text ?? '');
    const verified = await post('/account/email/verify', proof(newest));
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(await signsIn(t, email, ATTACKER_PASSWORD), false, "the attacker's password does not sign in");
    assert.equal((verified.json() as { password_set: boolean }).password_set, false);
    // The mailbox owner sets the password through a reset, which proves the mailbox again.
    assert.equal((await post('/account/password/forgot', { email })).statusCode, 202);
    const [reset] = await mailbox(email);
    assert.equal(reset?.template, 'password_reset');
    const resetLink = verificationLink(reset?.text ?? '');
    const chosen = 'my own password after all 3310';
    assert.equal((await post('/account/password/reset', { ...proof(resetLink), password: chosen })).statusCode, 200);
    assert.equal(await signsIn(t, email, chosen), true);
    assert.equal(await signsIn(t, email, ATTACKER_PASSWORD), false);
  });

  test("the victim types their password on the attacker's link: signup_password_mismatch, then chooses a new one", async () => {
    const { t, mailbox, signUp, post } = await start();
    const email = 'typist@acme-robotics.dev';
    await signUp(email, VICTIM_PASSWORD, 'Victim');
    const attackers = await signUp(email, ATTACKER_PASSWORD, 'Attacker');
    const [newest, older] = (await mailbox(email)).map((m) => verificationLink(m.text));
    assert.ok(newest && older);

    assertEnvelope(
      await post('/account/email/verify', { ...proof(newest), password: VICTIM_PASSWORD }),
      400,
      'signup_password_mismatch',
      MISMATCH,
    );
    // Nothing changed: still pending, and the refusal counted an attempt like a wrong secret.
    const [identity] = await t.sql`select state from identities where id = ${attackers}`;
    assert.equal(identity?.state, 'pending_verification');
    const [attempt] = await t.sql`
      select attempts, consumed_at from verifications where id = ${newest.verification_id}`;
    assert.deepEqual({ ...attempt }, { attempts: 1, consumed_at: null });
    assert.equal(await signsIn(t, email, ATTACKER_PASSWORD), false);
    // The first sign-up was replaced, so its link is dead.
    assertEnvelope(
      await post('/account/email/verify', { ...proof(older), password: VICTIM_PASSWORD }),
      400,
      'verification_invalid',
      'The verification id or secret is not valid.',
    );

    const chosen = await post('/account/email/verify', { ...proof(newest), new_password: VICTIM_PASSWORD });
    assert.equal(chosen.statusCode, 200, chosen.body);
    assert.deepEqual(chosen.json(), { identity_id: attackers, email_verified: true, password_set: true });
    assert.equal(await signsIn(t, email, VICTIM_PASSWORD), true, "the mailbox owner's password works");
    assert.equal(await signsIn(t, email, ATTACKER_PASSWORD), false, "the attacker's does not");
  });

  test('the attacker signs up first: the victim signs up again and confirms their own password', async () => {
    const { t, mailbox, signUp, post } = await start();
    const email = 'second@acme-robotics.dev';
    await signUp(email, ATTACKER_PASSWORD, 'Attacker');
    const attackersLink = verificationLink((await mailbox(email))[0]?.text ?? '');
    // Opened by the mailbox owner, who never signed up, with the password they would use: refused.
    assertEnvelope(
      await post('/account/email/verify', { ...proof(attackersLink), password: VICTIM_PASSWORD }),
      400,
      'signup_password_mismatch',
      MISMATCH,
    );
    const victims = await signUp(email, VICTIM_PASSWORD, 'Victim');
    const [own] = await mailbox(email);
    const verified = await post('/account/email/verify', {
      ...proof(verificationLink(own?.text ?? '')),
      password: VICTIM_PASSWORD,
    });
    assert.equal(verified.statusCode, 200, verified.body);
    assert.deepEqual(verified.json(), { identity_id: victims, email_verified: true, password_set: true });
    assertEnvelope(
      await post('/account/email/verify', { ...proof(attackersLink), password: ATTACKER_PASSWORD }),
      400,
      'verification_invalid',
      'The verification id or secret is not valid.',
    );
    assert.equal(await signsIn(t, email, VICTIM_PASSWORD), true);
    assert.equal(await signsIn(t, email, ATTACKER_PASSWORD), false);
  });

  test("the attacker's sign-up alone: the owner's bare click activates no password the attacker chose", async () => {
    const { t, mailbox, signUp, post } = await start();
    const email = 'curious@acme-robotics.dev';
    await signUp(email, ATTACKER_PASSWORD, 'Attacker');
    // Before verification the attacker cannot sign in, so cannot enroll a second factor either.
    const early = await signIn(t.app, email, { password: ATTACKER_PASSWORD });
    assert.equal(early.response.statusCode, 401);
    assert.equal(early.session, '');
    const link = verificationLink((await mailbox(email))[0]?.text ?? '');
    const verified = await post('/account/email/verify', proof(link));
    assert.equal(verified.statusCode, 200, verified.body);
    assert.equal(await signsIn(t, email, ATTACKER_PASSWORD), false);
    assert.equal((verified.json() as { password_set: boolean }).password_set, false);
  });
});

describe('POST /account/email/verify of a pending identity that holds more than its password', () => {
  test('a second factor, a passkey, a linked account, a wallet or any other method, a session or a grant planted on the pending identity does not survive', async () => {
    const { t, signUp, mailbox, post } = await start();
    const email = 'planted@acme-robotics.dev';
    const pending = (await signUp(email, ATTACKER_PASSWORD, 'Attacker')) as Sub;
    // No route gives a pending identity any of these today (it cannot sign in); they are planted in the stores to
    // show that the activation itself keeps nothing the mailbox owner did not prove.
    const seed = newTotpSeed(t.secrets.totp, pending);
    await upsertPendingTotp(t.sql, pending, seed.sealed);
    await confirmTotp(t.sql, pending, seed.sealed, 0, t.clock.now());
    await insertSignInMethod(t.sql, {
      identityId: pending,
      kind: 'federated',
      provider: 'corp',
      externalSubject: 'attacker-at-corp',
    });
    for (const [kind, provider, externalSubject] of [
      ['web3', 'ethereum', '0x00000000000000000000000000000000000a77ac'],
      ['saml', 'acme-idp', 'attacker@acme-idp'],
      ['ldap', 'corp-directory', 'uid=attacker'],
    ] as const)
      await insertSignInMethod(t.sql, { identityId: pending, kind, provider, externalSubject });
    const { method: passkeyMethod } = await insertSignInMethod(t.sql, {
      identityId: pending,
      kind: 'passkey',
      provider: 'webauthn',
      externalSubject: 'attackers-passkey',
    });
    await insertPasskeyCredential(
      t.sql,
      {
        methodId: passkeyMethod.id,
        identityId: pending,
        credentialId: 'attackers-passkey',
        publicKey: new Uint8Array([1, 2, 3]),
        signCount: 0,
        transports: ['usb'],
        backupEligible: false,
        backupState: false,
        aaguid: '00000000-0000-0000-0000-000000000000',
      },
      t.clock.now(),
    );
    const planted = await sessionCookieFor(t.sql, pending, { aal: 'aal2', now: t.clock.now() });
    const { client } = await makeClient(t.sql, t.secrets.clientSecret);
    await t.sql`
      insert into oauth_grants (id, client_id, identity_id, session_id, scope, auth_time, acr, amr, created_at, expires_at)
      values ('grt_planted', ${client.id}, ${pending}, 'ses_planted', 'openid', now(), 'aal2', ${['pwd', 'otp']}, now(),
              now() + interval '1 day')`;

    const link = verificationLink((await mailbox(email))[0]?.text ?? '');
    const verified = await post('/account/email/verify', { ...proof(link), new_password: VICTIM_PASSWORD });
    assert.equal(verified.statusCode, 200, verified.body);
    const methods = await t.sql`select kind from sign_in_methods where identity_id = ${pending}`;
    assert.deepEqual(
      methods.map((m) => m.kind),
      ['password'],
    );
    assert.equal((await t.sql`select 1 from totp_credentials where identity_id = ${pending}`).length, 0);
    assert.equal((await t.sql`select 1 from passkey_credentials where identity_id = ${pending}`).length, 0);
    const [grant] = await t.sql`select revoked_at from oauth_grants where id = 'grt_planted'`;
    assert.notEqual(grant?.revoked_at, null, "the planted grant's tokens stop working");
    assertEnvelope(
      await t.app.inject({ method: 'GET', url: '/account/profile', headers: { cookie: planted } }),
      401,
      'login_required',
      'Sign in first.',
    );
  });
});

describe('POST /account/email/verify refusals', () => {
  test('each refusal answers its envelope and leaves the sign-up pending; mismatches run out like wrong secrets', async () => {
    const { t, signUp, mailbox, post } = await start();
    const email = 'refusals@acme-robotics.dev';
    const pending = await signUp(email, VICTIM_PASSWORD, 'Victim');
    const link = verificationLink((await mailbox(email))[0]?.text ?? '');
    const attemptsSoFar = async () =>
      (await t.sql`select attempts from verifications where id = ${link.verification_id}`)[0]?.attempts;

    const both = await post('/account/email/verify', {
      ...proof(link),
      password: VICTIM_PASSWORD,
      new_password: 'another long passphrase 61',
    });
    assert.equal(both.statusCode, 400);
    assert.deepEqual(both.json(), {
      error: 'invalid_request',
      error_description: 'Send either password or new_password, not both.',
      request_id: both.headers['x-request-id'],
      fields: [{ path: 'body.new_password', problem: 'Send either password or new_password, not both.' }],
    });
    const weak = await post('/account/email/verify', { ...proof(link), new_password: 'password1234' });
    assert.equal(weak.statusCode, 400);
    const weakBody = weak.json() as { error: string; error_description: string; fields: { path: string }[] };
    assert.equal(weakBody.error, 'weak_password');
    assert.match(weakBody.error_description, /^New password: /);
    assert.deepEqual(
      weakBody.fields.map((f) => f.path),
      ['body.new_password'],
    );
    assert.equal(await attemptsSoFar(), 0, 'neither refusal tried the link');
    // A wrong secret says nothing about the password.
    assertEnvelope(
      await post('/account/email/verify', {
        ...proof({ ...link, secret: 'x'.repeat(43) }),
        password: 'wrong guess 123',
      }),
      400,
      'verification_invalid',
      'The verification id or secret is not valid.',
    );
    for (let attempt = 2; attempt < 5; attempt += 1)
      assertEnvelope(
        await post('/account/email/verify', { ...proof(link), password: `wrong guess number ${attempt}` }),
        400,
        'signup_password_mismatch',
        MISMATCH,
      );
    assertEnvelope(
      await post('/account/email/verify', { ...proof(link), password: 'the last wrong guess 5' }),
      400,
      'verification_attempts_exceeded',
      'Too many wrong attempts for this verification; request a new one.',
    );
    assertEnvelope(
      await post('/account/email/verify', { ...proof(link), password: VICTIM_PASSWORD }),
      400,
      'verification_attempts_exceeded',
      'Too many wrong attempts for this verification; request a new one.',
    );
    const [identity] = await t.sql`select state from identities where id = ${pending}`;
    assert.equal(identity?.state, 'pending_verification');
  });
});
