// A client's device_authorization_grant (RFC 8628, docs/oauth.md "Device authorization grant") through the
// administration API: off by default; a native or web client may be allowed it (then without any redirect URI); a
// service client never; every refusal changes nothing; the export carries it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, adminFixtures, assertAdminError, auditOf, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: device_authorization_grant of a client', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { serviceClient } = adminFixtures(call);
  const app = await call('POST', '/admin/applications', { identifier: 'tv', name: 'TV', environment: 'production' });
  const web = await call('POST', '/admin/clients', {
    application_id: app.json.id,
    name: 'Web',
    kind: 'web',
    redirect_uris: ['https://tv.example.test/callback'],
    scopes: ['openid'],
  });
  const url = `/admin/clients/${web.json.client_id}`;

  test('a client is not allowed the grant by default', () => {
    assert.equal(web.status, 201);
    assert.equal(web.json.device_authorization_grant, false);
  });

  test('PATCH allows it, audited by field name; GET shows it', async () => {
    const r = await call('PATCH', url, { device_authorization_grant: true });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.device_authorization_grant, true);
    assert.equal((await call('GET', url)).json.device_authorization_grant, true);
    const records = await auditOf(t, String(web.json.client_id));
    assert.deepEqual(records.at(-1)?.details, { fields: 'device_authorization_grant' });
  });

  test('a native client allowed the grant needs no redirect URI (a TV app or command-line tool)', async () => {
    const r = await call('POST', '/admin/clients', {
      application_id: app.json.id,
      name: 'TV app',
      kind: 'native',
      scopes: ['openid', 'offline_access'],
      device_authorization_grant: true,
    });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.deepEqual(r.json.redirect_uris, []);
    assert.equal(r.json.device_authorization_grant, true);
    // Without the grant it would sign no one in: a redirect URI is required again.
    const without = await call('PATCH', `/admin/clients/${r.json.client_id}`, { device_authorization_grant: false });
    assert.equal(without.status, 400);
    assert.deepEqual(without.json.fields, [
      { path: 'body.redirect_uris', problem: 'A native client needs at least one redirect URI.' },
    ]);
  });

  test('a service client may not be allowed it: 400, and nothing changes', async () => {
    await call('POST', '/admin/resources', {
      audience: 'https://orders.example.test/',
      name: 'orders',
      scopes: ['read'],
    });
    const service = await serviceClient('orders-worker', ['orders'], ['read']);
    const before = await registrySnapshot(t);
    const r = await call('PATCH', `/admin/clients/${service.json.client_id}`, { device_authorization_grant: true });
    assertAdminError(r, 400, 'invalid_request', 'Device authorization grant: must be false for a service client.', [
      { path: 'body.device_authorization_grant', problem: 'Must be false for a service client.' },
    ]);
    assert.deepEqual(await registrySnapshot(t), before);
  });

  test('a value that is not a boolean is refused by the schema', async () => {
    const r = await call('PATCH', url, { device_authorization_grant: 'yes' });
    assert.equal(r.status, 400);
    assert.equal(r.json.error, 'invalid_request');
  });
});
