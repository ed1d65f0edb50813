import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cookieFrom, JSON_HEADERS, makeAccount, signIn, totpCode } from '../../../test/helpers/accounts.ts';
import { startTestApp } from '../../../test/helpers/app.ts';
import { ensureBootstrap } from '../../identity/bootstrap.ts';
import { insertIdentity, insertSignInMethod, listSignInMethods } from '../../identity/store.ts';
import { PASSWORD_PROVIDER } from './credential-store.ts';
import { issueEnrollmentLink, issueFirstEnrollmentLink } from './enrollment-link.ts';

describe('owner enrollment: POST /auth/enroll, POST /account/totp/start and /account/totp/complete', async () => {
  const t = await startTestApp();
  const owner = await ensureBootstrap(t.sql, {
    organizationId: 'acme',
    organizationName: 'Acme',
    ownerSubject: 'owner@acme.test',
  });
  const tokenOf = (url: string) => new URLSearchParams(new URL(url).hash.slice(1)).get('token') as string;
  const post = async (url: string, payload: Record<string, unknown>, cookie = '') =>
    await t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) }, payload });
  const PASSWORD = 'lantern orchard quietly 47';

  it('walks the owner from a link to an aal2 admin session and a working sign-in', async () => {
    const link = await issueEnrollmentLink(t.sql, owner.ownerId, t.config.server.issuer, t.clock.now());
    assert.match(link.url, /^http:\/\/localhost:8080\/enroll#token=[A-Za-z0-9_-]{43}$/, 'the token is in the fragment');
    const token = tokenOf(link.url);

    // The page names the account before the password is chosen; asking does not use the link.
    const named = await post('/auth/enroll/account', { token });
    assert.equal(named.statusCode, 200, named.body);
    assert.equal(named.headers['cache-control'], 'no-store');
    assert.deepEqual(named.json(), { email: 'owner@acme.test', display_name: 'owner@acme.test' });
    const unknown = await post('/auth/enroll/account', { token: 'x'.repeat(43) });
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(unknown.json(), {
      error: 'invalid_enrollment_token',
      error_description: 'The enrollment link is invalid, expired or already used.',
      request_id: unknown.headers['x-request-id'],
    });

    const weak = await post('/auth/enroll', { token, password: 'password1234' });
    assert.equal(weak.statusCode, 400);
    assert.deepEqual(weak.json(), {
      error: 'weak_password',
      error_description: 'Password: this is similar to a commonly used password; add more words that are less common.',
      request_id: weak.headers['x-request-id'],
      fields: [
        {
          path: 'body.password',
          problem: 'this is similar to a commonly used password; add more words that are less common',
        },
      ],
    });
    const short = await post('/auth/enroll', { token, password: 'short pass' });
    assert.equal(short.json().error, 'weak_password');

    const enrolled = await post('/auth/enroll', { token, password: PASSWORD });
    assert.equal(enrolled.statusCode, 200, 'a refused password left the link usable');
    assert.deepEqual(enrolled.json(), {
      aal: 'aal1',
      amr: ['pwd'],
      enrollment_required: true,
      second_factor_required: false,
    });
    const limited = cookieFrom(enrolled, 'gatehouse_session');
    assert.ok(limited);

    const reused = await post('/auth/enroll', { token, password: PASSWORD });
    assert.equal(reused.statusCode, 400);
    assert.equal(reused.json().error, 'invalid_enrollment_token');

    // The enrollment-only session can do nothing but enroll TOTP.
    const admin = await post(`/admin/identities/${owner.ownerId}/sessions/revoke`, {}, limited);
    assert.equal(admin.statusCode, 403);
    assert.equal(admin.json().error, 'enrollment_required');

    const early = await post('/account/totp/complete', { code: '123456' }, limited);
    assert.equal(early.statusCode, 409);
    assert.equal(early.json().error, 'totp_enrollment_not_started');

    const started = await post('/account/totp/start', {}, limited);
    assert.equal(started.statusCode, 200);
    const { otpauth_uri, secret, account } = started.json() as { otpauth_uri: string; secret: string; account: string };
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.equal(account, 'owner@acme.test', 'the page names the account the authenticator will list');
    assert.ok(otpauth_uri.startsWith('otpauth://totp/localhost%3A8080:owner%40acme.test?'), otpauth_uri);
    assert.match(otpauth_uri, new RegExp(`secret=${secret}`));

    const good = totpCode(secret, t.clock.now());
    const wrong = String((Number(good) + 1) % 1_000_000).padStart(6, '0');
    const bad = await post('/account/totp/complete', { code: wrong }, limited);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'invalid_totp_code');

    const done = await post('/account/totp/complete', { code: good }, limited);
    assert.equal(done.statusCode, 200);
    const result = done.json() as { recovery_codes: string[]; aal: string; amr: string[] };
    assert.equal(result.recovery_codes.length, 10);
    assert.equal(new Set(result.recovery_codes).size, 10);
    for (const code of result.recovery_codes) assert.match(code, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    assert.equal(result.aal, 'aal2');
    assert.deepEqual(result.amr, ['pwd', 'otp']);
    const full = cookieFrom(done, 'gatehouse_session');
    assert.ok(full && full !== limited, 'the privilege change rotated the session id');

    const old = await post('/auth/logout', {}, limited);
    assert.equal(old.statusCode, 401, 'the enrollment-only session ended with the rotation');

    const again = await post('/account/totp/start', {}, full);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error, 'totp_already_enrolled');

    const revoke = await post(`/admin/identities/${owner.ownerId}/sessions/revoke`, {}, full);
    assert.equal(revoke.statusCode, 200, 'the ial2 owner at aal2 passes the admin guard');
    assert.deepEqual(revoke.json(), { revoked: 1, grants_revoked: 0 });

    t.clock.advance(30);
    const later = await signIn(t.app, 'Owner@Acme.test', { password: PASSWORD, totp: totpCode(secret, t.clock.now()) });
    assert.equal(later.response.statusCode, 200);
    assert.deepEqual(later.response.json(), {
      aal: 'aal2',
      amr: ['pwd', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });

    const recovered = await signIn(t.app, 'owner@acme.test', {
      password: PASSWORD,
      recovery_code: result.recovery_codes[0] as string,
    });
    assert.equal(recovered.response.statusCode, 200);
  });

  it('keeps only the newest link, and lets a link expire after 24 hours', async () => {
    const first = await issueEnrollmentLink(t.sql, owner.ownerId, t.config.server.issuer, t.clock.now());
    const second = await issueEnrollmentLink(t.sql, owner.ownerId, t.config.server.issuer, t.clock.now());
    const dead = await post('/auth/enroll', { token: tokenOf(first.url), password: PASSWORD });
    assert.equal(dead.statusCode, 400);
    assert.equal(dead.json().error, 'invalid_enrollment_token');
    t.clock.advance(24 * 3600 + 1);
    const expired = await post('/auth/enroll', { token: tokenOf(second.url), password: PASSWORD });
    assert.equal(expired.statusCode, 400);
    assert.equal(expired.json().error, 'invalid_enrollment_token');
  });

  it('resets the TOTP and revokes the sessions of an owner who uses a new link', async () => {
    const before = await signIn(t.app, 'owner@acme.test', { password: PASSWORD, recovery_code: 'not-a-code' });
    assert.equal(before.response.statusCode, 401);
    const link = await issueEnrollmentLink(t.sql, owner.ownerId, t.config.server.issuer, t.clock.now());
    const enrolled = await post('/auth/enroll', { token: tokenOf(link.url), password: 'a brand new passphrase 9' });
    assert.equal(enrolled.statusCode, 200);
    const [totp] = await t.sql`select 1 from totp_credentials where identity_id = ${owner.ownerId}`;
    assert.equal(totp, undefined);
    const [live] = await t.sql`
      select count(*)::int as n from sessions where identity_id = ${owner.ownerId} and revoked_at is null`;
    assert.equal(live?.n, 1, 'only the new enrollment-only session is live');
  });

  it('gives an account without TOTP an enrollment-only session at sign-in', async () => {
    const a = await makeAccount(t.sql, t.secrets, t.config, { totp: false });
    const { response, session } = await signIn(t.app, a.email, { password: a.password });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      aal: 'aal1',
      amr: ['pwd'],
      enrollment_required: true,
      second_factor_required: false,
    });
    const started = await post('/account/totp/start', {}, session);
    assert.equal(started.statusCode, 200);
  });

  it('leaves the link usable when attaching the password method fails with method_conflict', async () => {
    const invitee = await insertIdentity(t.sql, {
      displayName: 'Second owner',
      assurance: 'ial2',
      email: { address: 'second@acme.test', verified: true },
    });
    // Another identity already holds the local password method for this address.
    const holder = await makeAccount(t.sql, t.secrets, t.config);
    const { method } = await insertSignInMethod(t.sql, {
      identityId: holder.sub,
      kind: 'password',
      provider: PASSWORD_PROVIDER,
      externalSubject: 'second@acme.test',
    });
    const link = await issueEnrollmentLink(t.sql, invitee, t.config.server.issuer, t.clock.now());
    const refused = await post('/auth/enroll', { token: tokenOf(link.url), password: PASSWORD });
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(refused.json(), {
      error: 'method_conflict',
      error_description: 'This sign-in method belongs to another account.',
      request_id: refused.headers['x-request-id'],
    });
    const [token] = await t.sql`select used_at from enrollment_tokens where identity_id = ${invitee}`;
    assert.equal(token?.used_at, null, 'the link was not spent');
    assert.deepEqual(await listSignInMethods(t.sql, invitee), []);

    await t.sql`delete from sign_in_methods where id = ${method.id}`;
    const enrolled = await post('/auth/enroll', { token: tokenOf(link.url), password: PASSWORD });
    assert.equal(enrolled.statusCode, 200, 'the same link works once the conflict is gone');
  });

  it('the automatic link (setup, development start) is issued only while the identity has no password', async () => {
    const invitee = await insertIdentity(t.sql, {
      displayName: 'Third owner',
      assurance: 'ial2',
      email: { address: 'third@acme.test', verified: true },
    });
    const link = await issueFirstEnrollmentLink(t.sql, invitee, t.config.server.issuer, t.clock.now());
    assert.ok(link);
    assert.equal((await post('/auth/enroll', { token: tokenOf(link.url), password: PASSWORD })).statusCode, 200);
    const tokens = async () =>
      await t.sql`select token_hash, used_at from enrollment_tokens where identity_id = ${invitee}`;
    const before = await tokens();
    assert.equal(await issueFirstEnrollmentLink(t.sql, invitee, t.config.server.issuer, t.clock.now()), null);
    assert.deepEqual(await tokens(), before, 'no new link replaced the used one');
  });

  it('refuses an unknown token and unknown fields without changing anything', async () => {
    const unknown = await post('/auth/enroll', { token: 'A'.repeat(43), password: PASSWORD });
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.json().error, 'invalid_enrollment_token');
    const extra = await post('/auth/enroll', { token: 'A'.repeat(43), password: PASSWORD, admin: true });
    assert.equal(extra.statusCode, 400);
    assert.equal(extra.json().error, 'invalid_request');
    const noSession = await post('/account/totp/start', {});
    assert.equal(noSession.statusCode, 401);
    assert.equal(noSession.json().error, 'login_required');
  });
});
