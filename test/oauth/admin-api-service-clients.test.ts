// A service client has no user and no browser (SPEC.md "Client kinds"), so it has nowhere to send anyone after a
// sign-out: post-logout redirect URIs are refused like redirect URIs, on creation and on PATCH.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, adminFixtures, assertAdminError, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: post-logout redirect URIs of service clients', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { resource, serviceClient, audienceOf } = adminFixtures(call);
  await resource('orders', ['orders:read']);
  const worker = await serviceClient('worker', ['orders'], ['orders:read']);

  const path = 'body.post_logout_redirect_uris';
  const problem = 'Must be empty for a service client.';
  const description = 'Sign-out redirect URIs: must be empty for a service client.';

  test('POST /admin/clients refuses a service client with post-logout URIs: 400 naming the field', async () => {
    const before = await registrySnapshot(t);
    const r = await call('POST', '/admin/clients', {
      application_id: worker.json.application_id,
      name: 'Reporter',
      kind: 'service',
      audiences: [audienceOf('orders')],
      scopes: ['orders:read'],
      post_logout_redirect_uris: ['https://reports.example.test/bye'],
    });
    assertAdminError(r, 400, 'invalid_request', description, [{ path, problem }]);
    assert.deepEqual(await registrySnapshot(t), before);
  });

  test('PATCH /admin/clients/{id} refuses adding post-logout URIs to a service client, changing nothing', async () => {
    const before = await registrySnapshot(t);
    const url = `/admin/clients/${worker.json.client_id}`;
    const r = await call('PATCH', url, { name: 'Worker 2', post_logout_redirect_uris: ['https://w.example.test/bye'] });
    assertAdminError(r, 400, 'invalid_request', description, [{ path, problem }]);
    assert.deepEqual(await registrySnapshot(t), before);
    const { client_secret: _, ...shown } = worker.json;
    assert.deepEqual((await call('GET', url)).json, shown);
  });

  test('still accepts a service client with an empty list', async () => {
    const r = await call('PATCH', `/admin/clients/${worker.json.client_id}`, { post_logout_redirect_uris: [] });
    assert.equal(r.status, 200);
    assert.deepEqual(r.json.post_logout_redirect_uris, []);
  });
});
