// Sign-in lockout that strangers cannot turn against the owner (OWASP device cookies, src/login/local/known-device.ts):
// failures from clients without a device cookie lock only such clients; a browser that signed in to the account
// before has a budget of its own; passkeys are never locked by password failures. Two nodes share one database.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { type Account, cookieFrom, JSON_HEADERS, makeAccount, signIn, totpCode } from '../helpers/accounts.ts';
import { startTestApp, TestClock } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const { sql } = await createTestDatabase();
const clock = new TestClock();
const nodeA = await startTestApp({ sql, clock, config });
const nodeB = await startTestApp({ sql, clock, config });

const OWNER_IP = '198.51.100.10';
const STRANGER_IP = '203.0.113.66';
const HALF_YEAR = 180 * 24 * 3600;

const right = (a: Account) => ({ password: a.password, totp: totpCode(a.totpSeed as string, clock.now()) });
const wrongTotp = (a: Account) => String((Number(right(a).totp) + 1) % 1_000_000).padStart(6, '0');

/** A full sign-in from the owner's browser: returns the device cookie it kept, as a Cookie header. */
async function knownBrowser(a: Account, remoteAddress = OWNER_IP): Promise<string> {
  const { response } = await signIn(nodeA.app, a.email, right(a), { remoteAddress });
  assert.equal(response.statusCode, 200, response.body);
  // Whatever the browser was given to keep (the device cookie test checks what that is).
  return cookieFrom(response, 'gatehouse_device');
}

/** Five wrong passwords from a stranger without a device cookie, spread over both nodes: the account's budget. */
async function strangerLocksAccount(a: Account): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    const node = attempt % 2 === 0 ? nodeB : nodeA;
    const { response } = await signIn(
      node.app,
      a.email,
      { password: `guess ${attempt}`, totp: '000000' },
      {
        remoteAddress: STRANGER_IP,
      },
    );
    assert.equal(response.statusCode, 401, `guess ${attempt}`);
  }
}

function assertThrottled(response: LightMyRequestResponse, retryAfter: string): void {
  assert.equal(response.statusCode, 429, response.body);
  assert.equal(response.headers['retry-after'], retryAfter);
  assert.deepEqual(response.json(), {
    error: 'rate_limited',
    error_description: 'Too many sign-in attempts; retry later.',
    request_id: response.headers['x-request-id'],
  });
  assert.equal(cookieFrom(response, 'gatehouse_session'), '');
  assert.equal(cookieFrom(response, 'gatehouse_device'), '');
}

const throttledBudgets = async (email: string) =>
  (
    await sql<{ budget: string }[]>`
      select details->>'budget' as budget from audit_events
      where event = 'signin.throttled' and details->>'subject' = ${email} order by id`
  ).map((r) => r.budget);

describe('POST /auth/mfa/verify while strangers guess the password', () => {
  it('lets the owner’s known browser sign in with password and TOTP while unknown clients stay locked', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config);
    const device = await knownBrowser(owner);
    clock.advance(30); // a new TOTP step: each code is accepted once
    await strangerLocksAccount(owner);

    const stranger = await signIn(nodeB.app, owner.email, right(owner), { remoteAddress: STRANGER_IP });
    assertThrottled(stranger.response, '30');
    const newBrowser = await signIn(nodeA.app, owner.email, right(owner), { remoteAddress: OWNER_IP });
    assertThrottled(newBrowser.response, '30');

    const known = await signIn(nodeB.app, owner.email, right(owner), {
      remoteAddress: OWNER_IP,
      headers: { cookie: device },
    });
    assert.equal(known.response.statusCode, 200, known.response.body);
    assert.deepEqual(known.response.json(), {
      aal: 'aal2',
      amr: ['pwd', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });
    assert.ok(known.session);

    // The owner's success is not the strangers': their lock stands.
    assertThrottled(
      (await signIn(nodeA.app, owner.email, right(owner), { remoteAddress: STRANGER_IP })).response,
      '30',
    );
    assert.deepEqual(await throttledBudgets(owner.email), ['unknown_clients', 'unknown_clients', 'unknown_clients']);
    const [locked] = await sql<{ budget: string }[]>`
      select details->>'budget' as budget from audit_events where event = 'signin.locked' and subject = ${owner.sub}`;
    assert.equal(locked?.budget, 'unknown_clients');
  });

  it('counts a known browser’s own wrong TOTP and recovery codes against that browser alone', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config);
    const laptop = await knownBrowser(owner);
    clock.advance(30);
    const phone = await knownBrowser(owner, '198.51.100.11');
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const second = attempt % 2 === 0 ? { totp: wrongTotp(owner) } : { recovery_code: 'AAAA-BBBB-CCCC' };
      const { response } = await signIn(
        attempt % 2 === 0 ? nodeA.app : nodeB.app,
        owner.email,
        { password: owner.password, ...second },
        { remoteAddress: OWNER_IP, headers: { cookie: laptop } },
      );
      assert.equal(response.statusCode, 401, `attempt ${attempt}`);
      assert.equal(response.json().error, 'invalid_credentials');
    }
    const laptopAgain = await signIn(nodeA.app, owner.email, right(owner), {
      remoteAddress: OWNER_IP,
      headers: { cookie: laptop },
    });
    assertThrottled(laptopAgain.response, '30');
    assert.deepEqual(await throttledBudgets(owner.email), ['known_device']);

    // While the laptop is locked (recovery codes: this TOTP step is spent).
    const withCode = (n: number) => ({ password: owner.password, recovery_code: owner.recoveryCodes[n] as string });
    const phoneAgain = await signIn(nodeB.app, owner.email, withCode(0), {
      remoteAddress: OWNER_IP,
      headers: { cookie: phone },
    });
    assert.equal(phoneAgain.response.statusCode, 200, 'another known browser has its own budget');
    const unknown = await signIn(nodeB.app, owner.email, withCode(1), { remoteAddress: '198.51.100.12' });
    assert.equal(unknown.response.statusCode, 200, 'the unknown clients’ budget was not spent by the laptop');
    clock.advance(30);
    assert.equal(
      (await signIn(nodeA.app, owner.email, right(owner), { remoteAddress: OWNER_IP, headers: { cookie: laptop } }))
        .response.statusCode,
      200,
      'the laptop signs in again once its own lock ends',
    );
  });

  it('treats a device cookie that is tampered, garbled, expired or for another account as an unknown client', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config);
    const other = await makeAccount(sql, nodeA.secrets, config);
    const expiring = await knownBrowser(owner);
    clock.advance(HALF_YEAR - 60);
    const otherDevice = await knownBrowser(other);
    const device = await knownBrowser(owner);
    const [name, value = ''] = device.split('=');
    const flipped = `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;
    clock.advance(60);
    await strangerLocksAccount(owner);
    const presented = {
      'another account’s': otherDevice.replace(/^[^=]+/, String(name)),
      'a tampered': `${name}=${flipped}`,
      'a garbled': `${name}=${'x'.repeat(5000)}`,
      'an expired': expiring,
    };
    for (const [label, cookie] of Object.entries(presented)) {
      const { response } = await signIn(nodeA.app, owner.email, right(owner), { headers: { cookie } });
      assert.equal(response.statusCode, 429, `${label} device cookie`);
      assertThrottled(response, '30');
    }
    const genuine = await signIn(nodeA.app, owner.email, right(owner), { headers: { cookie: device } });
    assert.equal(genuine.response.statusCode, 200, 'the genuine cookie still works');
  });

  it('signs in with a passkey while password failures have locked unknown clients', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config);
    const { cookie: session } = await makeSession(nodeA, owner.sub);
    const authenticator = new SoftAuthenticator({ origin: 'http://localhost:8080', backupEligible: false });
    const post = (url: string, payload: object, cookie = '') =>
      nodeA.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) }, payload });
    const creation = await post('/account/passkeys/options', {}, session);
    const { challenge_id, options } = creation.json();
    const added = await post(
      '/account/passkeys',
      { challenge_id, name: 'Key', credential: authenticator.register(options) },
      session,
    );
    assert.equal(added.statusCode, 201, added.body);

    await strangerLocksAccount(owner);
    assertThrottled((await signIn(nodeA.app, owner.email, right(owner))).response, '30');

    const started = await post('/auth/passkey/options', { subject: owner.email });
    const login = cookieFrom(started, 'gatehouse_login');
    const verified = await post(
      '/auth/passkey/verify',
      { challenge_id: started.json().challenge_id, credential: authenticator.assert(started.json().options) },
      login,
    );
    assert.equal(verified.statusCode, 200, verified.body);
    assert.deepEqual(verified.json(), {
      aal: 'aal2',
      amr: ['hwk', 'user'],
      enrollment_required: false,
      second_factor_required: false,
    });
  });

  it('keeps counting a known browser against its address', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config);
    const device = await knownBrowser(owner, '198.51.100.30');
    await sql`update login_throttle set failures = 50, locked_until = ${new Date(clock.now().getTime() + 30_000)}
              where scope = 'ip' and key = '198.51.100.30'`;
    const { response } = await signIn(nodeA.app, owner.email, right(owner), {
      remoteAddress: '198.51.100.30',
      headers: { cookie: device },
    });
    assertThrottled(response, '30');
  });
});

describe('the device cookie', () => {
  it('is set only by a full sign-in: HttpOnly, SameSite=Lax, Path=/, half a year, renewed with the same id', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config);
    const { response } = await signIn(nodeA.app, owner.email, right(owner));
    const cookie = response.cookies.find((c) => c.name === 'gatehouse_device');
    assert.ok(cookie);
    assert.deepEqual(
      { httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, path: cookie.path, maxAge: cookie.maxAge },
      { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: HALF_YEAR },
    );
    assert.match(cookie.value, /^[A-Za-z0-9_-]{22}\.[0-9]+\.[A-Za-z0-9_-]{22}$/);
    assert.ok(!cookie.value.includes(owner.email) && !cookie.value.includes(owner.sub), 'it names nobody in clear');

    clock.advance(30);
    const again = await signIn(nodeA.app, owner.email, right(owner), {
      headers: { cookie: `gatehouse_device=${cookie.value}` },
    });
    const renewed = cookieFrom(again.response, 'gatehouse_device');
    assert.equal(renewed.split('.')[0], `gatehouse_device=${cookie.value.split('.')[0]}`);
    assert.notEqual(renewed, `gatehouse_device=${cookie.value}`, 'a later expiry');

    const failed = await signIn(nodeA.app, owner.email, { password: 'wrong', totp: '000000' });
    assert.equal(cookieFrom(failed.response, 'gatehouse_device'), '');
    const noTotp = await makeAccount(sql, nodeA.secrets, config, { totp: false });
    const enrollment = await signIn(nodeA.app, noTotp.email, { password: noTotp.password });
    assert.equal(enrollment.response.statusCode, 200);
    assert.equal(cookieFrom(enrollment.response, 'gatehouse_device'), '', 'a password alone makes no browser known');
  });

  it('remembers several accounts signed in from one browser', async () => {
    const first = await makeAccount(sql, nodeA.secrets, config);
    const second = await makeAccount(sql, nodeA.secrets, config);
    const device = await knownBrowser(first);
    const both = cookieFrom(
      (await signIn(nodeA.app, second.email, right(second), { headers: { cookie: device } })).response,
      'gatehouse_device',
    );
    assert.equal(both.split('~').length, 2);
    clock.advance(30);
    await strangerLocksAccount(first);
    await strangerLocksAccount(second);
    for (const a of [first, second]) {
      const { response } = await signIn(nodeB.app, a.email, right(a), { headers: { cookie: both } });
      assert.equal(response.statusCode, 200, a.email);
    }
  });

  it('uses the __Host- name with Secure over https', async () => {
    const https = await startTestApp({
      sql,
      clock,
      config: makeConfig({ server: { issuer: 'https://id.acme.test' } }),
    });
    const owner = await makeAccount(sql, https.secrets, https.config);
    const headers = { origin: 'https://id.acme.test' };
    const start = await https.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { ...JSON_HEADERS, ...headers },
      payload: { subject: owner.email },
    });
    const login = start.cookies.find((c) => c.name === '__Host-gatehouse_login');
    const verify = await https.app.inject({
      method: 'POST',
      url: '/auth/mfa/verify',
      headers: { ...JSON_HEADERS, ...headers, cookie: `__Host-gatehouse_login=${login?.value}` },
      payload: {
        transaction_id: start.json().transaction_id,
        challenge_id: start.json().challenge_id,
        ...right(owner),
      },
    });
    assert.equal(verify.statusCode, 200, verify.body);
    const device = verify.cookies.find((c) => c.name === '__Host-gatehouse_device');
    assert.ok(device);
    assert.equal(device.secure, true);
    assert.equal(device.httpOnly, true);
  });
});

describe('POST /auth/login with a subject shaped like another throttle key', () => {
  it('spends only the sign-in budget of that text, not the owner’s re-authentication or password-reset budget', async () => {
    const owner = await makeAccount(sql, nodeA.secrets, config, { email: `keyspace-${process.pid}@acme-robotics.dev` });
    for (const subject of [`reauth:${owner.sub}`, `mail:${owner.email}`])
      for (let attempt = 1; attempt <= 6; attempt += 1)
        await signIn(nodeA.app, subject, { password: `guess ${attempt}` }, { remoteAddress: '203.0.113.99' });

    const { cookie } = await makeSession(nodeA, owner.sub, { authTime: new Date(clock.now().getTime() - 3600_000) });
    const reauth = await nodeA.app.inject({
      method: 'POST',
      url: '/account/passkeys/options',
      headers: { ...JSON_HEADERS, cookie },
      payload: { password: owner.password },
    });
    assert.equal(reauth.statusCode, 200, reauth.body);
    const forgot = await nodeA.app.inject({
      method: 'POST',
      url: '/account/password/forgot',
      headers: JSON_HEADERS,
      payload: { email: owner.email },
    });
    assert.equal(forgot.statusCode, 202, forgot.body);
    assert.deepEqual(forgot.json(), { status: 'sent_if_registered' });
  });
});
