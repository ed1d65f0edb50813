// GET /admin/me: the console header's "signed in as". Only the admin guard's people get an answer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, assertAdminError } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('GET /admin/me', () => {
  test('answers the signed-in owner: name, primary address, organization and roles', async () => {
    const t = await startTestApp();
    const admin = await makeAdmin(t);
    await t.sql`update identities set display_name = 'Grace Hopper' where id = ${admin.sub}`;
    const [email] = await t.sql<{ address: string }[]>`
      select address from emails where identity_id = ${admin.sub} and is_primary`;
    const r = await adminCaller(t, admin.cookie)('GET', '/admin/me');
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json, {
      sub: admin.sub,
      display_name: 'Grace Hopper',
      email: email?.address ?? null,
      organization_id: t.config.organization.id,
      roles: ['owner'],
    });
  });

  test('refuses a caller without a session with 401 login_required', async () => {
    const t = await startTestApp();
    const r = await adminCaller(t, '')('GET', '/admin/me');
    assertAdminError(r, 401, 'login_required', 'Sign in first.');
  });
});
