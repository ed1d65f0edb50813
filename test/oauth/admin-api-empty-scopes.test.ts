// A client that signs people in (web, browser, native) must be registered with at least one scope: with none it
// could ask for nothing, and every authorization request would fail later. Service clients keep their own rule.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, adminFixtures, assertAdminError, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('POST /admin/clients and PATCH /admin/clients/:id: an empty scope list', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { resource, audienceOf } = adminFixtures(call);
  const app = await call('POST', '/admin/applications', {
    identifier: 'shop',
    name: 'Shop',
    environment: 'production',
  });
  await resource('orders', ['orders:read']);

  const USER_KINDS = [
    ['web', 'https://shop.example.test/cb'],
    ['browser', 'https://shop.example.test/spa'],
    ['native', 'http://127.0.0.1/cb'],
  ] as const;
  const refusal = (kind: string) => {
    const problem = `A ${kind} client needs at least one scope, such as openid.`;
    const description = `Scopes: a ${kind} client needs at least one scope, such as openid.`;
    return [400, 'invalid_request', description, [{ path: 'body.scopes', problem }]] as const;
  };

  for (const [kind, uri] of USER_KINDS) {
    const body = { application_id: app.json.id, name: `Shop ${kind}`, kind, redirect_uris: [uri] };

    test(`creating a ${kind} client with no scopes is refused with invalid_request naming body.scopes`, async () => {
      const before = await registrySnapshot(t);
      assertAdminError(await call('POST', '/admin/clients', { ...body, scopes: [] }), ...refusal(kind));
      assert.deepEqual(await registrySnapshot(t), before, 'nothing stored, nothing audited');
    });

    test(`emptying a ${kind} client's scopes is refused with invalid_request and changes nothing`, async () => {
      const created = await call('POST', '/admin/clients', { ...body, scopes: ['openid'] });
      assert.equal(created.status, 201);
      const url = `/admin/clients/${created.json.client_id}`;
      const before = await registrySnapshot(t);
      assertAdminError(await call('PATCH', url, { scopes: [] }), ...refusal(kind));
      assert.deepEqual(await registrySnapshot(t), before, 'nothing stored, nothing audited');
      assert.deepEqual((await call('GET', url)).json.scopes, ['openid']);
    });
  }

  test('a service client keeps its own rule for an empty scope list', async () => {
    const body = { application_id: app.json.id, name: 'Worker', kind: 'service', audiences: [audienceOf('orders')] };
    const problem = 'A service client must be provisioned with scopes.';
    assertAdminError(
      await call('POST', '/admin/clients', { ...body, scopes: [] }),
      400,
      'invalid_request',
      'Scopes: a service client must be provisioned with scopes.',
      [{ path: 'body.scopes', problem }],
    );
  });
});
