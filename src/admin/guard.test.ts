import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JSON_HEADERS, makeAccount, sessionCookieFor } from '../../test/helpers/accounts.ts';
import { startTestApp } from '../../test/helpers/app.ts';

// The guarded probe is a real /admin route: revoking the sessions of an identity.
describe('the /admin guard', async () => {
  const t = await startTestApp();
  await t.sql`insert into organizations (id, name) values ('acme', 'Acme'), ('other', 'Other')`;
  const target = await makeAccount(t.sql, t.secrets, t.config);
  const probe = async (cookie: string) =>
    await t.app.inject({
      method: 'POST',
      url: `/admin/identities/${target.sub}/sessions/revoke`,
      headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) },
      payload: {},
    });
  const expectError = (response: Awaited<ReturnType<typeof probe>>, status: number, error: string, text: string) => {
    assert.equal(response.statusCode, status);
    assert.deepEqual(response.json(), {
      error,
      error_description: text,
      request_id: response.headers['x-request-id'],
    });
  };
  const now = () => t.clock.now();

  it('answers 401 login_required without a session', async () => {
    expectError(await probe(''), 401, 'login_required', 'Sign in first.');
  });

  // Authentication before CSRF: without the cookie there is no session a forged request could ride, so a script (no
  // Origin) and a cross-site caller alike are told to sign in, and nothing changes.
  it('answers a cookie-less call 401 login_required whatever its origin, and revokes nothing', async () => {
    await sessionCookieFor(t.sql, target.sub, { aal: 'aal1', now: now() });
    const live = async () =>
      await t.sql`select count(*)::int as n from sessions where identity_id = ${target.sub} and revoked_at is null`;
    const before = await live();
    for (const origin of [undefined, 'https://evil.example', 'null']) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/admin/identities/${target.sub}/sessions/revoke`,
        headers: { 'content-type': 'application/json', ...(origin ? { origin } : {}) },
        payload: {},
      });
      expectError(response, 401, 'login_required', 'Sign in first.');
    }
    assert.deepEqual(await live(), before);
    assert.ok((before[0]?.n ?? 0) > 0);
    // Leaves the target as the other tests expect it: no live session.
    await t.sql`update sessions set revoked_at = now() where identity_id = ${target.sub}`;
  });

  it('refuses a call with the owner cookie but no Origin or Sec-Fetch-Site with csrf_rejected', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/identities/${target.sub}/sessions/revoke`,
      headers: { 'content-type': 'application/json', cookie },
      payload: {},
    });
    expectError(response, 403, 'csrf_rejected', 'The request must carry a same-origin Origin header');
  });

  it('answers 403 admin_required for a member', async () => {
    const member = await makeAccount(t.sql, t.secrets, t.config, { roles: ['member'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, member.sub, { aal: 'aal2', now: now() });
    expectError(await probe(cookie), 403, 'admin_required', 'Only an owner of the organization may do this');
  });

  it('answers 403 admin_required for an owner of another organization', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, {
      roles: ['owner'],
      assurance: 'ial2',
      organizationId: 'other',
    });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    expectError(await probe(cookie), 403, 'admin_required', 'Only an owner of the organization may do this');
  });

  it('answers 403 admin_required for an owner signed in at aal1', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal1', now: now() });
    expectError(await probe(cookie), 403, 'admin_required', 'Sign in with a second factor (aal2) first');
  });

  it('answers 403 admin_required for an ial1 owner', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial1' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    expectError(await probe(cookie), 403, 'admin_required', 'The owner must be verified to IAL2');
  });

  it('answers 401 login_required for a suspended owner: the session itself no longer counts', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, {
      roles: ['owner'],
      assurance: 'ial2',
      state: 'suspended',
    });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    expectError(await probe(cookie), 401, 'login_required', 'Sign in first.');
  });

  it('answers 403 enrollment_required for an enrollment-only session', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal1', pending: 'enrollment', now: now() });
    expectError(await probe(cookie), 403, 'enrollment_required', 'Finish enrolling a second factor first.');
  });

  it('lets an active ial2 owner at aal2 through', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner', 'admin'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    const response = await probe(cookie);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { revoked: 0, grants_revoked: 0 });
  });

  it('refuses a cross-site request of a valid owner session with csrf_rejected', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/identities/${target.sub}/sessions/revoke`,
      headers: { 'content-type': 'application/json', origin: 'https://evil.example', cookie },
      payload: {},
    });
    expectError(response, 403, 'csrf_rejected', 'The request came from another origin');
  });

  // A cross-site page can post a form with the owner's cookie attached; the route takes JSON, so the form is
  // refused as a media type before the origin is even looked at, and changes nothing.
  it('answers a form post with the owner session 415 unsupported_media_type and revokes nothing', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config, { roles: ['owner'], assurance: 'ial2' });
    const cookie = await sessionCookieFor(t.sql, owner.sub, { aal: 'aal2', now: now() });
    await sessionCookieFor(t.sql, target.sub, { aal: 'aal1', now: now() });
    const live = async () =>
      await t.sql`select count(*)::int as n from sessions where identity_id = ${target.sub} and revoked_at is null`;
    const before = await live();
    for (const origin of ['https://evil.example', 'http://localhost:8080']) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/admin/identities/${target.sub}/sessions/revoke`,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin, cookie },
        payload: 'confirm=1',
      });
      expectError(response, 415, 'unsupported_media_type', 'The request body has an unsupported content type.');
    }
    assert.deepEqual(await live(), before);
    assert.ok((before[0]?.n ?? 0) > 0);
  });
});
