import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Account,
  JSON_HEADERS,
  makeAccount,
  sessionCookieFor,
  signIn,
  totpCode,
} from '../../test/helpers/accounts.ts';
import { startTestApp } from '../../test/helpers/app.ts';
import { makeConfig } from '../../test/helpers/config.ts';

describe('sessions: POST /auth/logout, rotation at sign-in, owner revocation', async () => {
  const t = await startTestApp();
  const other = await startTestApp({ sql: t.sql, clock: t.clock });
  await t.sql`insert into organizations (id, name) values ('acme', 'Acme')`;
  const post = async (url: string, cookie: string, app = t.app, headers: Record<string, string> = JSON_HEADERS) =>
    await app.inject({ method: 'POST', url, headers: { ...headers, ...(cookie ? { cookie } : {}) }, payload: {} });
  const login = async (a: Account, extraCookie = '') => {
    t.clock.advance(30); // a fresh TOTP step for every sign-in of the same account
    const code = totpCode(a.totpSeed as string, t.clock.now());
    const { response, session } = await signIn(
      t.app,
      a.email,
      { password: a.password, totp: code },
      extraCookie ? { headers: { cookie: extraCookie } } : {},
    );
    assert.equal(response.statusCode, 200);
    return session;
  };

  it('ends the session on logout, clears the cookie, and refuses the cookie afterwards', async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const cookie = await login(a);
    const out = await post('/auth/logout', cookie);
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /^gatehouse_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax$/);
    const again = await post('/auth/logout', cookie);
    assert.equal(again.statusCode, 401);
    assert.deepEqual(again.json(), {
      error: 'login_required',
      error_description: 'Sign in first.',
      request_id: again.headers['x-request-id'],
    });
  });

  it('refuses a cross-site logout with csrf_rejected', async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const cookie = await login(a);
    const crossSite = await post('/auth/logout', cookie, t.app, {
      'content-type': 'application/json',
      'sec-fetch-site': 'cross-site',
    });
    assert.equal(crossSite.statusCode, 403);
    assert.equal(crossSite.json().error, 'csrf_rejected');
    assert.equal((await post('/auth/logout', cookie)).statusCode, 204, 'the session survived the refused request');
  });

  it('answers a cross-site form post to logout 415 unsupported_media_type and keeps the session', async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const cookie = await login(a);
    for (const headers of [
      { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
      { 'content-type': 'text/plain', origin: 'https://evil.example' },
    ]) {
      const refused = await t.app.inject({
        method: 'POST',
        url: '/auth/logout',
        headers: { ...headers, cookie },
        payload: 'a=1',
      });
      assert.equal(refused.statusCode, 415);
      assert.deepEqual(refused.json(), {
        error: 'unsupported_media_type',
        error_description: 'The request body has an unsupported content type.',
        request_id: refused.headers['x-request-id'],
      });
      assert.equal(refused.headers['set-cookie'], undefined);
    }
    assert.equal((await post('/auth/logout', cookie)).statusCode, 204, 'the session survived the refused requests');
  });

  it('issues a new session id at every sign-in and revokes the one the browser had', async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const first = await login(a);
    const second = await login(a, first);
    assert.notEqual(second, first);
    assert.equal((await post('/auth/logout', first)).statusCode, 401, 'the earlier session was revoked');
    assert.equal((await post('/auth/logout', second)).statusCode, 204);
    const [rotated] = await t.sql`
      select actor, subject, details from audit_events
      where event = 'session.revoked' and subject = ${a.sub} and details->>'reason' = 'rotated'`;
    assert.equal(rotated?.actor, a.sub);
    assert.match(String(rotated?.details.session_id), /^ses_/);
    assert.match(String(rotated?.details.successor), /^ses_/);
    assert.notEqual(rotated?.details.session_id, rotated?.details.successor);
  });

  it('lets an owner revoke every session of an identity, refused at once on every node', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const ownerCookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: t.clock.now() });
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const one = await login(a);
    const two = await login(a);
    const revoked = await post(`/admin/identities/${a.sub}/sessions/revoke`, ownerCookie);
    assert.equal(revoked.statusCode, 200);
    assert.deepEqual(revoked.json(), { revoked: 2, grants_revoked: 0 });
    assert.equal((await post('/auth/logout', one, other.app)).statusCode, 401);
    assert.equal((await post('/auth/logout', two, t.app)).statusCode, 401);
    const [event] = await t.sql`select actor, subject, details from audit_events where event = 'session.revoked_all'`;
    assert.deepEqual(event, { actor: owner.sub, subject: a.sub, details: { revoked: 2, grants_revoked: 0 } });
  });

  it('answers 404 not_found when the owner names an unknown identity, and 400 for a malformed one', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: t.clock.now() });
    const unknown = await post('/admin/identities/usr_nobody/sessions/revoke', cookie);
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error, 'not_found');
    const malformed = await post('/admin/identities/cli_123/sessions/revoke', cookie);
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().error, 'invalid_request');
  });
});

describe('session lifetimes: idle 12 h, absolute 7 days (GET /account/profile)', async () => {
  // Account routes need self-service with a delivery that could send; nothing is sent here.
  const config = makeConfig({
    self_service: { enabled: true },
    delivery: { kind: 'webhook', from: 'no-reply@acme.dev', webhook: { url: 'http://127.0.0.1:9/hooks' } },
  });
  const t = await startTestApp({ config });
  const HOUR = 3600;
  const profile = async (cookie: string) =>
    await t.app.inject({ method: 'GET', url: '/account/profile', headers: { cookie } });
  const signedIn = async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const { response, session } = await signIn(t.app, a.email, {
      password: a.password,
      totp: totpCode(a.totpSeed as string, t.clock.now()),
    });
    assert.equal(response.statusCode, 200);
    return session;
  };
  const refused = (response: Awaited<ReturnType<typeof profile>>) => {
    assert.equal(response.statusCode, 401);
    assert.deepEqual(response.json(), {
      error: 'login_required',
      error_description: 'Sign in first.',
      request_id: response.headers['x-request-id'],
    });
  };

  it('ends a session left unused for 12 hours', async () => {
    const cookie = await signedIn();
    t.clock.advance(12 * HOUR + 1);
    refused(await profile(cookie));
  });

  it('extends the idle limit with use', async () => {
    const cookie = await signedIn();
    t.clock.advance(11 * HOUR);
    assert.equal((await profile(cookie)).statusCode, 200);
    t.clock.advance(11 * HOUR);
    assert.equal((await profile(cookie)).statusCode, 200, '22 h after sign-in, 11 h after last use: still live');
    t.clock.advance(12 * HOUR + 1);
    refused(await profile(cookie));
  });

  it('ends a session 7 days after sign-in however often it is used', async () => {
    const cookie = await signedIn();
    for (let hours = 11; hours < 168; hours += 11) {
      t.clock.advance(11 * HOUR);
      assert.equal((await profile(cookie)).statusCode, 200, `${hours} h after sign-in`);
    }
    // 165 h have passed; the last use was just now, so only the absolute limit can end it.
    t.clock.advance(3 * HOUR - 1);
    assert.equal((await profile(cookie)).statusCode, 200, 'one second before 7 days');
    t.clock.advance(2);
    refused(await profile(cookie));
  });
});

describe('session and login cookies over https', async () => {
  const config = makeConfig({ server: { issuer: 'https://id.acme.test' } });
  const t = await startTestApp({ config });

  it('uses __Host- names with Secure, HttpOnly, SameSite=Lax and Path=/', async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config);
    const headers = { 'content-type': 'application/json', origin: 'https://id.acme.test' };
    const start = await t.app.inject({ method: 'POST', url: '/auth/login', headers, payload: { subject: a.email } });
    const loginCookie = start.cookies.find((c) => c.name === '__Host-gatehouse_login');
    assert.ok(loginCookie);
    assert.equal(loginCookie.secure, true);
    assert.equal(loginCookie.httpOnly, true);
    assert.equal(loginCookie.sameSite, 'Lax');
    assert.equal(loginCookie.path, '/');
    const { transaction_id, challenge_id } = start.json();
    const verify = await t.app.inject({
      method: 'POST',
      url: '/auth/mfa/verify',
      headers: { ...headers, cookie: `__Host-gatehouse_login=${loginCookie.value}` },
      payload: {
        transaction_id,
        challenge_id,
        password: a.password,
        totp: totpCode(a.totpSeed as string, t.clock.now()),
      },
    });
    assert.equal(verify.statusCode, 200);
    const session = verify.cookies.find((c) => c.name === '__Host-gatehouse_session');
    assert.ok(session);
    assert.equal(session.secure, true);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    assert.equal(session.path, '/');
    assert.equal(session.domain, undefined);
    assert.match(String(verify.headers['strict-transport-security']), /max-age=/);
  });
});
