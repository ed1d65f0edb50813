// Field paths of client validation errors name the list entry as sent, even when the list repeats an entry: the
// console quotes the entry at that index beside its input, so a shifted index would blame the wrong value.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeField } from '../../src/http/validation-messages.ts';
import { adminCaller, adminFixtures, assertAdminError, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: client field paths with repeated entries', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { resource, audienceOf } = adminFixtures(call);

  const shop = await call('POST', '/admin/applications', {
    identifier: 'shop',
    name: 'Shop',
    environment: 'production',
  });
  await resource('orders', ['orders:read', 'orders:write']);
  const orders = audienceOf('orders');
  const cb = 'https://shop.example.test/cb';
  const bye = 'https://shop.example.test/bye';
  const HTTPS = 'Must use https (http only for loopback on native clients or localhost in development applications).';

  const web = { application_id: shop.json.id, name: 'Web', kind: 'web', redirect_uris: [cb], scopes: ['openid'] };
  const service = { application_id: shop.json.id, name: 'Worker', kind: 'service', audiences: [orders] };

  const cases: [string, Record<string, unknown>, string, string][] = [
    [
      'a bad redirect URI after a repeated good one',
      { ...web, redirect_uris: [cb, cb, 'http://shop.example.test/cb'] },
      'body.redirect_uris.2',
      HTTPS,
    ],
    [
      'a bad post-logout URI after a repeated good one',
      { ...web, post_logout_redirect_uris: [bye, bye, 'https://user:pw@shop.example.test/bye'] },
      'body.post_logout_redirect_uris.2',
      'Must not contain user credentials.',
    ],
    [
      'an unknown scope after a repeated good one',
      { ...web, scopes: ['openid', 'openid', 'admin'] },
      'body.scopes.2',
      "Must be one of openid, profile, email, offline_access or a scope of the client's audiences.",
    ],
    [
      'an unregistered audience after a repeated good one',
      { ...service, audiences: [orders, orders, 'https://other.example.test/'], scopes: ['orders:read'] },
      'body.audiences.2',
      'Is not a registered resource audience.',
    ],
    [
      'a scope its audiences do not define after a repeated good one',
      { ...service, scopes: ['orders:read', 'orders:read', 'orders:delete'] },
      'body.scopes.2',
      'Is not a scope of the provisioned audiences.',
    ],
  ];

  for (const [name, body, path, problem] of cases)
    test(`POST /admin/clients names ${path} for ${name}, changing nothing`, async () => {
      const before = await registrySnapshot(t);
      const r = await call('POST', '/admin/clients', body);
      assertAdminError(r, 400, 'invalid_request', describeField({ path, problem }), [{ path, problem }]);
      assert.deepEqual(await registrySnapshot(t), before);
    });

  test('PATCH /admin/clients/{id} names entries as sent too, changing nothing', async () => {
    const created = await call('POST', '/admin/clients', web);
    const worker = await call('POST', '/admin/clients', { ...service, scopes: ['orders:read'] });
    assert.deepEqual([created.status, worker.status], [201, 201]);
    const patches: [unknown, Record<string, unknown>, { path: string; problem: string }[]][] = [
      [
        created.json.client_id,
        { redirect_uris: [cb, cb, 'http://shop.example.test/x'], scopes: ['openid', 'openid', 'admin'] },
        [
          { path: 'body.redirect_uris.2', problem: HTTPS },
          {
            path: 'body.scopes.2',
            problem: "Must be one of openid, profile, email, offline_access or a scope of the client's audiences.",
          },
        ],
      ],
      [
        worker.json.client_id,
        { audiences: [orders, orders, 'https://other.example.test/'], scopes: ['orders:read', 'orders:read', 'x'] },
        [
          { path: 'body.audiences.2', problem: 'Is not a registered resource audience.' },
          { path: 'body.scopes.2', problem: 'Is not a scope of the provisioned audiences.' },
        ],
      ],
    ];
    for (const [id, body, fields] of patches) {
      const before = await registrySnapshot(t);
      const r = await call('PATCH', `/admin/clients/${id}`, body);
      assertAdminError(r, 400, 'invalid_request', fields.map(describeField).join(' '), fields);
      assert.deepEqual(await registrySnapshot(t), before);
    }
  });

  test('still stores a valid list once per entry, in the order first sent', async () => {
    const r = await call('POST', '/admin/clients', {
      ...web,
      redirect_uris: [cb, bye, cb],
      post_logout_redirect_uris: [bye, bye],
      scopes: ['openid', 'email', 'openid'],
    });
    assert.equal(r.status, 201);
    assert.deepEqual(
      [r.json.redirect_uris, r.json.post_logout_redirect_uris, r.json.scopes],
      [[cb, bye], [bye], ['openid', 'email']],
    );
    const patched = await call('PATCH', `/admin/clients/${r.json.client_id}`, { scopes: ['email', 'email'] });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.json.scopes, ['email']);
  });
});
