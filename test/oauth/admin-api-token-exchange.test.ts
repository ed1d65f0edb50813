// A client's token_exchange_audiences (RFC 8693, docs/oauth.md "Token exchange") through the administration API:
// none by default; confidential clients only; each a registered resource, whose scopes the client may then hold; a
// resource stays in use while a client may exchange for it; every refusal changes nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, adminFixtures, assertAdminError, auditOf, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: token_exchange_audiences of a client', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { resource, serviceClient, audienceOf } = adminFixtures(call);
  const orders = await resource('orders', ['orders:read']);
  const billing = await resource('billing', ['billing:read']);
  const worker = await serviceClient('worker', ['orders'], ['orders:read']);
  const url = `/admin/clients/${worker.json.client_id}`;

  test('a client has none by default: the grant is not allowed until an administrator names an audience', () => {
    assert.deepEqual(worker.json.token_exchange_audiences, []);
  });

  test('PATCH allows an audience, and with it that audience’s scopes; the change is audited by field name', async () => {
    const r = await call('PATCH', url, {
      token_exchange_audiences: [audienceOf('billing'), audienceOf('billing')],
      scopes: ['orders:read', 'billing:read'],
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual(r.json.token_exchange_audiences, [audienceOf('billing')], 'stored once');
    assert.deepEqual(r.json.scopes, ['orders:read', 'billing:read']);
    assert.deepEqual((await call('GET', url)).json.token_exchange_audiences, [audienceOf('billing')]);
    const records = await auditOf(t, String(worker.json.client_id));
    assert.deepEqual(records.at(-1)?.details, { fields: 'scopes,token_exchange_audiences' });
  });

  test('an unregistered audience is refused naming its entry, and nothing changes', async () => {
    const before = await registrySnapshot(t);
    const r = await call('PATCH', url, { token_exchange_audiences: [audienceOf('billing'), audienceOf('nowhere')] });
    assertAdminError(
      r,
      400,
      'invalid_request',
      'Token exchange audiences, entry 2: is not a registered resource audience.',
      [{ path: 'body.token_exchange_audiences.1', problem: 'Is not a registered resource audience.' }],
    );
    assert.deepEqual(await registrySnapshot(t), before);
  });

  test('a public client may not exchange: 400 on creation', async () => {
    const before = await registrySnapshot(t);
    const r = await call('POST', '/admin/clients', {
      application_id: worker.json.application_id,
      name: 'Single-page app',
      kind: 'browser',
      redirect_uris: ['https://spa.example.test/callback'],
      scopes: ['openid'],
      token_exchange_audiences: [audienceOf('billing')],
    });
    const problem = 'must be empty for a browser client: only web and service clients may exchange tokens';
    assertAdminError(r, 400, 'invalid_request', `Token exchange audiences: ${problem}.`, [
      { path: 'body.token_exchange_audiences', problem: `${problem[0]?.toUpperCase()}${problem.slice(1)}.` },
    ]);
    assert.deepEqual(await registrySnapshot(t), before);
  });

  test('a resource a client may exchange for stays in use: delete and scope removal are 409', async () => {
    assertAdminError(
      await call('DELETE', `/admin/resources/${billing.json.id}`, {}),
      409,
      'resource_in_use',
      'A client is still provisioned for this resource; update it first.',
    );
    assertAdminError(
      await call('PATCH', `/admin/resources/${billing.json.id}`, { scopes: ['billing:write'] }),
      409,
      'resource_scope_in_use',
      `Client ${worker.json.client_id} still holds scope billing:read of this resource; update the client first.`,
    );
    assert.equal((await call('GET', `/admin/resources/${orders.json.id}`)).status, 200);
  });
});
