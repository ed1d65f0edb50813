// Account self-service end to end: every message is the one a real SMTP server received from the real worker.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { cookieFrom, JSON_HEADERS, signIn, totpCode } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { deliveryWorker, Inbox, proof, startMailbox, verificationLink } from '../helpers/mailbox.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const inbox = new Inbox(smtp, deliveryWorker(t.sql, config, t.secrets.delivery, t.clock.now, t.logs));

const post = (url: string, payload: unknown, cookie = '') =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) },
    payload: payload as object,
  });
const get = (url: string, cookie: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });
const envelope = (response: { json(): unknown; headers: Record<string, unknown> }, error: string) => {
  const body = response.json() as Record<string, unknown>;
  assert.equal(body.error, error, JSON.stringify(body));
  assert.equal(body.request_id, response.headers['x-request-id']);
  assert.equal(typeof body.error_description, 'string');
};

const PASSWORD = 'a long enough passphrase 42';
let seen = 0;
const secretsSeen: string[] = [PASSWORD];

/** Signs up, verifies through the emailed link, enrolls TOTP; returns what a person would hold afterwards. */
async function newPerson(email: string) {
  const signup = await post('/account/signup', { email, password: PASSWORD, display_name: 'Ada Lovelace' });
  assert.equal(signup.statusCode, 201);
  const [mail] = await inbox.deliver(1);
  // The message is this sign-up's: one left over from an earlier test would otherwise surface as a bare 400 below.
  assert.deepEqual(mail?.to, [email], `the message read was "${mail?.subject}" to ${mail?.to}`);
  const link = verificationLink(mail?.text ?? '');
  secretsSeen.push(link.secret);
  const verified = await post('/account/email/verify', { ...proof(link), password: PASSWORD });
  assert.equal(verified.statusCode, 200, verified.body);
  const first = await signIn(t.app, email, { password: PASSWORD });
  const started = (await post('/account/totp/start', {}, first.session)).json() as { secret: string };
  t.clock.advance(30);
  const completed = await post(
    '/account/totp/complete',
    { code: totpCode(started.secret, t.clock.now()) },
    first.session,
  );
  const { recovery_codes } = completed.json() as { recovery_codes: string[] };
  secretsSeen.push(...recovery_codes, started.secret);
  seen += 1;
  return {
    email,
    seed: started.secret,
    session: cookieFrom(completed, 'gatehouse_session'),
    recoveryCodes: recovery_codes,
  };
}

async function signInWithTotp(email: string, seed: string, password = PASSWORD) {
  t.clock.advance(30);
  return await signIn(t.app, email, { password, totp: totpCode(seed, t.clock.now()) });
}

describe('POST /account/signup and /account/email/verify', () => {
  test('a new person signs up, verifies the emailed link, enrolls TOTP and signs in at aal2', async () => {
    const email = 'ada@acme-robotics.dev';
    const signup = await post('/account/signup', { email, password: PASSWORD, display_name: 'Ada Lovelace' });
    assert.equal(signup.statusCode, 201);
    const { identity_id, verification_required } = signup.json() as {
      identity_id: string;
      verification_required: boolean;
    };
    assert.match(identity_id, /^usr_/);
    assert.equal(verification_required, true);

    const early = await signIn(t.app, email, { password: PASSWORD });
    assert.equal(early.response.statusCode, 401, 'an unverified account cannot sign in');

    const [mail] = await inbox.deliver(1);
    assert.deepEqual(mail?.to, [email]);
    assert.equal(mail?.subject, 'Confirm your email address for Acme Robotics');
    const link = verificationLink(mail?.text ?? '');
    secretsSeen.push(link.secret);
    assert.equal(link.path, '/account/email/verify');
    const verified = await post('/account/email/verify', { ...proof(link), password: PASSWORD });
    assert.equal(verified.statusCode, 200);
    assert.deepEqual(verified.json(), { identity_id, email_verified: true, password_set: true });
    envelope(await post('/account/email/verify', { ...proof(link), password: PASSWORD }), 'verification_invalid');

    const first = await signIn(t.app, email, { password: PASSWORD });
    assert.equal(first.response.statusCode, 200);
    assert.equal((first.response.json() as { enrollment_required: boolean }).enrollment_required, true);
    envelope(await get('/account/profile', first.session), 'enrollment_required');

    const started = await post('/account/totp/start', {}, first.session);
    const { secret, otpauth_uri, qr_svg } = started.json() as { secret: string; otpauth_uri: string; qr_svg: string };
    assert.match(otpauth_uri, /^otpauth:\/\/totp\//);
    assert.match(qr_svg, /^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    t.clock.advance(30);
    const completed = await post('/account/totp/complete', { code: totpCode(secret, t.clock.now()) }, first.session);
    assert.equal(completed.statusCode, 200);
    assert.equal((completed.json() as { recovery_codes: string[] }).recovery_codes.length, 10);

    const signedIn = await signInWithTotp(email, secret);
    assert.equal(signedIn.response.statusCode, 200);
    assert.equal((signedIn.response.json() as { aal: string }).aal, 'aal2');
    const profile = await get('/account/profile', signedIn.session);
    assert.equal(profile.statusCode, 200);
    assert.deepEqual(
      { ...(profile.json() as object), created_at: undefined },
      {
        identity_id,
        display_name: 'Ada Lovelace',
        email,
        email_verified: true,
        assurance: 'ial1',
        password_set: true,
        locale: null,
        created_at: undefined,
      },
    );
  });

  test('a registered address gets the same answer, and its owner a notice instead of a second account', async () => {
    const person = await newPerson('grace@acme-robotics.dev');
    const again = await post('/account/signup', {
      email: 'Grace@Acme-Robotics.dev',
      password: 'another long passphrase 9',
      display_name: 'Impostor',
    });
    assert.equal(again.statusCode, 201);
    const body = again.json() as { identity_id: string; verification_required: boolean };
    assert.equal(body.verification_required, true);
    const [notice] = await inbox.deliver(1);
    assert.deepEqual(notice?.to, [person.email], 'the notice goes to the address on record');
    assert.equal(notice?.subject, 'Sign-up attempt at Acme Robotics');
    assert.doesNotMatch(notice?.text ?? '', /#verification_id=/);
    const rows = await t.sql`select id from identities where id = ${body.identity_id}`;
    assert.equal(rows.length, 0, 'the returned id names no identity');
    const holders =
      await t.sql`select identity_id from sign_in_methods where external_subject = 'grace@acme-robotics.dev'`;
    assert.equal(holders.length, 1);
    assert.equal((await signInWithTotp(person.email, person.seed)).response.statusCode, 200, 'the owner is untouched');
  });

  test('weak passwords and malformed input are refused and store nothing', async () => {
    const before = await t.sql`select count(*)::int as n from identities`;
    envelope(
      await post('/account/signup', { email: 'weak@acme-robotics.dev', password: 'password1234', display_name: 'W' }),
      'weak_password',
    );
    envelope(
      await post('/account/signup', { email: 'not-an-address', password: PASSWORD, display_name: 'W' }),
      'invalid_request',
    );
    envelope(
      await post('/account/signup', {
        email: 'x@acme-robotics.dev',
        password: PASSWORD,
        display_name: 'W',
        admin: true,
      }),
      'invalid_request',
    );
    const after = await t.sql`select count(*)::int as n from identities`;
    assert.deepEqual(after, before);
  });

  test('a cross-site sign-up is refused', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/account/signup',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      payload: { email: 'csrf@acme-robotics.dev', password: PASSWORD, display_name: 'C' },
    });
    assert.equal(response.statusCode, 403);
    envelope(response, 'csrf_rejected');
  });
});

describe('POST /account/password/forgot and /account/password/reset', () => {
  test('known and unknown addresses get identical answers; only the known one gets mail', async () => {
    const person = await newPerson('hopper@acme-robotics.dev');
    const known = await post('/account/password/forgot', { email: person.email });
    const unknown = await post('/account/password/forgot', { email: 'nobody@acme-robotics.dev' });
    assert.equal(known.statusCode, 202);
    assert.equal(unknown.statusCode, 202);
    assert.deepEqual(known.json(), unknown.json());
    assert.deepEqual(known.json(), { status: 'sent_if_registered' });
    const mails = await inbox.deliver(1);
    assert.equal(mails.length, 1);
    assert.deepEqual(mails[0]?.to, [person.email]);
  });

  test('a reset link works once, keeps working after a refused password, and ends every session', async () => {
    const person = await newPerson('lamarr@acme-robotics.dev');
    await post('/account/password/forgot', { email: person.email });
    const [mail] = await inbox.deliver(1);
    const link = verificationLink(mail?.text ?? '');
    secretsSeen.push(link.secret);
    assert.equal(link.path, '/account/password/reset');
    const fields = { verification_id: link.verification_id, secret: link.secret };
    envelope(await post('/account/password/reset', { ...fields, password: 'short' }), 'weak_password');
    const newPassword = 'a completely new passphrase 77';
    secretsSeen.push(newPassword);
    const reset = await post('/account/password/reset', { ...fields, password: newPassword });
    assert.equal(reset.statusCode, 200);
    assert.deepEqual(reset.json(), { status: 'password_reset' });
    envelope(
      await post('/account/password/reset', { ...fields, password: 'yet another passphrase 55' }),
      'verification_invalid',
    );
    envelope(await get('/account/profile', person.session), 'login_required');
    assert.equal(
      (await signInWithTotp(person.email, person.seed)).response.statusCode,
      401,
      'the old password is dead',
    );
    assert.equal((await signInWithTotp(person.email, person.seed, newPassword)).response.statusCode, 200);
  });

  test('a reset link expires', async () => {
    const person = await newPerson('germain@acme-robotics.dev');
    await post('/account/password/forgot', { email: person.email });
    const link = verificationLink((await inbox.deliver(1))[0]?.text ?? '');
    t.clock.advance(31 * 60);
    const expired = await post('/account/password/reset', {
      verification_id: link.verification_id,
      secret: link.secret,
      password: 'an expired passphrase 1234',
    });
    assert.equal(expired.statusCode, 400);
    envelope(expired, 'verification_expired');
  });
});

describe('profile, email change, TOTP, recovery codes, sessions, connections', () => {
  test('PATCH /account/profile changes the display name and nothing else', async () => {
    const person = await newPerson('curie@acme-robotics.dev');
    const changed = await t.app.inject({
      method: 'PATCH',
      url: '/account/profile',
      headers: { ...JSON_HEADERS, cookie: person.session },
      payload: { display_name: 'Marie Curie' },
    });
    assert.equal(changed.statusCode, 200);
    assert.equal((changed.json() as { display_name: string }).display_name, 'Marie Curie');
    const refused = await t.app.inject({
      method: 'PATCH',
      url: '/account/profile',
      headers: { ...JSON_HEADERS, cookie: person.session },
      payload: { assurance: 'ial2' },
    });
    envelope(refused, 'invalid_request');
  });

  test('an email change needs the password, verifies the new address, moves the sign-in and tells the old address', async () => {
    const person = await newPerson('meitner@acme-robotics.dev');
    envelope(
      await post(
        '/account/email/change',
        { new_email: 'lise@acme-robotics.dev', password: 'wrong password here' },
        person.session,
      ),
      'reauthentication_failed',
    );
    const started = await post(
      '/account/email/change',
      { new_email: 'lise@acme-robotics.dev', password: PASSWORD },
      person.session,
    );
    assert.equal(started.statusCode, 202);
    const [verification] = await inbox.deliver(1);
    assert.deepEqual(verification?.to, ['lise@acme-robotics.dev']);
    const link = verificationLink(verification?.text ?? '');
    assert.equal(link.path, '/account/email/change/verify');
    // Until verified, the old address still signs in.
    assert.equal((await signInWithTotp(person.email, person.seed)).response.statusCode, 200);
    const done = await post('/account/email/change/verify', proof(link), person.session);
    assert.equal(done.statusCode, 200);
    assert.deepEqual(done.json(), { email: 'lise@acme-robotics.dev' });
    const [notice] = await inbox.deliver(1);
    assert.deepEqual(notice?.to, [person.email]);
    assert.equal((await signInWithTotp('lise@acme-robotics.dev', person.seed)).response.statusCode, 200);
    assert.equal((await signInWithTotp(person.email, person.seed)).response.statusCode, 401);
  });

  test('an email change to an address another account signs in with is refused with email_taken', async () => {
    const taken = await newPerson('franklin@acme-robotics.dev');
    const person = await newPerson('hodgkin@acme-robotics.dev');
    await post('/account/email/change', { new_email: taken.email, password: PASSWORD }, person.session);
    const link = verificationLink((await inbox.deliver(1))[0]?.text ?? '');
    const refused = await post('/account/email/change/verify', proof(link), person.session);
    assert.equal(refused.statusCode, 409);
    envelope(refused, 'email_taken');
  });

  test('TOTP: status, disabling needs password and a current code, and leaves an enrollment-only session', async () => {
    const person = await newPerson('johnson@acme-robotics.dev');
    assert.deepEqual((await get('/account/totp', person.session)).json(), {
      enabled: true,
      recovery_codes_remaining: 10,
    });
    envelope(await post('/account/totp/start', {}, person.session), 'totp_already_enrolled');
    t.clock.advance(30);
    envelope(
      await post('/account/totp/disable', { password: PASSWORD, code: '000000' }, person.session),
      'reauthentication_failed',
    );
    t.clock.advance(30);
    const disabled = await post(
      '/account/totp/disable',
      { password: PASSWORD, code: totpCode(person.seed, t.clock.now()) },
      person.session,
    );
    assert.equal(disabled.statusCode, 200);
    assert.deepEqual(disabled.json(), { enrollment_required: true });
    const session = cookieFrom(disabled, 'gatehouse_session');
    envelope(await get('/account/totp', session), 'enrollment_required');
    envelope(await get('/account/profile', person.session), 'login_required');
  });

  test('POST /auth/recovery-codes with the password and a current code replaces the set: old codes die, new ones work', async () => {
    const person = await newPerson('hamilton@acme-robotics.dev');
    t.clock.advance(30);
    const fresh = await post(
      '/auth/recovery-codes',
      { password: PASSWORD, code: totpCode(person.seed, t.clock.now()) },
      person.session,
    );
    assert.equal(fresh.statusCode, 200);
    assert.equal(fresh.headers['cache-control'], 'no-store');
    const codes = (fresh.json() as { recovery_codes: string[] }).recovery_codes;
    secretsSeen.push(...codes);
    assert.equal(codes.length, 10);
    const [audit] = await t.sql`
      select event, actor, subject, request_id from audit_events
      where event = 'recovery_codes.regenerated' and request_id = ${String(fresh.headers['x-request-id'])}`;
    assert.ok(audit, 'the regeneration is audited');
    const { identity_id } = (await get('/account/profile', person.session)).json() as { identity_id: string };
    assert.deepEqual(
      { ...audit },
      {
        event: 'recovery_codes.regenerated',
        actor: identity_id,
        subject: identity_id,
        request_id: fresh.headers['x-request-id'],
      },
    );
    assert.equal(
      (await signIn(t.app, person.email, { password: PASSWORD, recovery_code: person.recoveryCodes[0] as string }))
        .response.statusCode,
      401,
    );
    assert.equal(
      (await signIn(t.app, person.email, { password: PASSWORD, recovery_code: codes[0] as string })).response
        .statusCode,
      200,
    );
  });

  test('POST /auth/recovery-codes refuses a session alone, a wrong password or a wrong code, and changes nothing', async () => {
    const person = await newPerson('kovalevskaya@acme-robotics.dev');
    const alone = await post('/auth/recovery-codes', {}, person.session);
    assert.equal(alone.statusCode, 400);
    envelope(alone, 'invalid_request');
    assert.deepEqual((alone.json() as { fields: unknown }).fields, [
      { path: 'body.password', problem: 'This is required.' },
    ]);
    t.clock.advance(30);
    const wrongPassword = await post(
      '/auth/recovery-codes',
      { password: 'not the password at all', code: totpCode(person.seed, t.clock.now()) },
      person.session,
    );
    assert.equal(wrongPassword.statusCode, 403);
    envelope(wrongPassword, 'reauthentication_failed');
    t.clock.advance(30);
    const wrongCode = await post('/auth/recovery-codes', { password: PASSWORD, code: '000000' }, person.session);
    assert.equal(wrongCode.statusCode, 403);
    envelope(wrongCode, 'reauthentication_failed');
    const { identity_id } = (await get('/account/profile', person.session)).json() as { identity_id: string };
    const [regenerated] = await t.sql`
      select count(*)::int as n from audit_events where event = 'recovery_codes.regenerated' and actor = ${identity_id}`;
    assert.equal(regenerated?.n, 0);
    const [failed] = await t.sql`
      select count(*)::int as n from audit_events where event = 'reauth.failed' and actor = ${identity_id}`;
    assert.equal(failed?.n, 2);
    assert.deepEqual((await get('/account/totp', person.session)).json(), {
      enabled: true,
      recovery_codes_remaining: 10,
    });
    assert.equal(
      (await signIn(t.app, person.email, { password: PASSWORD, recovery_code: person.recoveryCodes[0] as string }))
        .response.statusCode,
      200,
      'the old codes still work',
    );
  });

  test('sessions: list mine with the current one marked, revoke one, revoke all others', async () => {
    const person = await newPerson('goldberg@acme-robotics.dev');
    const second = (await signInWithTotp(person.email, person.seed)).session;
    const third = (await signInWithTotp(person.email, person.seed)).session;
    const listed = (await get('/account/sessions', person.session)).json() as {
      sessions: { id: string; current: boolean }[];
    };
    assert.equal(listed.sessions.length, 3);
    assert.equal(listed.sessions.filter((s) => s.current).length, 1);
    const other = listed.sessions.find((s) => !s.current);
    assert.ok(other);
    assert.equal((await post(`/account/sessions/${other.id}/revoke`, {}, person.session)).statusCode, 204);
    envelope(await post(`/account/sessions/${other.id}/revoke`, {}, person.session), 'not_found');
    const revokedOthers = await post('/account/sessions/revoke-others', {}, person.session);
    assert.deepEqual(revokedOthers.json(), { revoked: 1 });
    for (const cookie of [second, third]) envelope(await get('/account/profile', cookie), 'login_required');
    assert.equal((await get('/account/profile', person.session)).statusCode, 200);
  });

  test("another person's session id is not found, and not revoked", async () => {
    const a = await newPerson('ride@acme-robotics.dev');
    const b = await newPerson('jemison@acme-robotics.dev');
    const bSessions = (await get('/account/sessions', b.session)).json() as { sessions: { id: string }[] };
    envelope(await post(`/account/sessions/${bSessions.sessions[0]?.id}/revoke`, {}, a.session), 'not_found');
    assert.equal((await get('/account/profile', b.session)).statusCode, 200);
  });

  test('connections list the password method; removing the last method is refused with 409', async () => {
    const person = await newPerson('wu@acme-robotics.dev');
    const { connections } = (await get('/account/connections', person.session)).json() as {
      connections: { id: string; kind: string; subject: string }[];
    };
    assert.equal(connections.length, 1);
    assert.equal(connections[0]?.kind, 'password');
    assert.equal(connections[0]?.subject, person.email);
    const refused = await post(`/account/connections/${connections[0]?.id}/remove`, {}, person.session);
    assert.equal(refused.statusCode, 409);
    envelope(refused, 'last_sign_in_method');
  });

  test('signed-out callers get 401 login_required', async () => {
    for (const url of ['/account/profile', '/account/totp', '/account/sessions', '/account/connections'])
      envelope(await t.app.inject({ method: 'GET', url }), 'login_required');
  });
});

describe('secrets stay out of logs', () => {
  test('no password, verification secret, TOTP seed or recovery code reached a log line', () => {
    assert.ok(seen > 0);
    for (const secret of secretsSeen)
      assert.ok(!t.logs.text.includes(secret), `a log line holds ${secret.slice(0, 6)}…`);
  });
});
