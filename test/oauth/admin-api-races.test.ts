// Concurrent client writes and resource changes (docs/decisions.md "Admin API: client writes and resource changes
// take locks"): each test holds one side open in a transaction, starts the other through the API, and shows it wait
// for the commit and then be checked against it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as store from '../../src/clients/store.ts';
import { adminCaller, adminFixtures, assertAdminEnvelope } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { untilBlocked } from '../helpers/lock-waits.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: client and resource changes racing', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  type Answer = Awaited<ReturnType<typeof call>>;

  const { resource: resourceNamed, serviceClient, audienceOf } = adminFixtures(call);

  test('a resource change and a client change racing over one scope: the later waits, then is refused', async () => {
    const resource = await resourceNamed('race', ['race:a', 'race:b', 'race:c']);
    const worker = await serviceClient('race-worker', ['race'], ['race:a']);
    const resourceUrl = `/admin/resources/${resource.json.id}`;
    const clientUrl = `/admin/clients/${worker.json.client_id}`;
    // A client update in flight (the admin API's steps: share-lock its resources, write) gives the worker race:b;
    // a PATCH dropping race:b meanwhile waits, then sees the committed client and refuses.
    let dropB: ReturnType<typeof call> | undefined;
    await t.sql.begin(async (tx) => {
      await store.lockResourcesByAudience(tx, [audienceOf('race')]);
      const current = await store.findClient(tx, worker.json.client_id as string);
      assert.ok(current);
      await store.updateClient(tx, current.id, { ...current, scopes: ['race:a', 'race:b'] }, new Date());
      dropB = call('PATCH', resourceUrl, { scopes: ['race:a', 'race:c'] });
      await untilBlocked(t.sql, dropB);
    });
    assertAdminEnvelope(
      (await dropB) as Answer,
      'resource_scope_in_use',
      `Client ${worker.json.client_id} still holds scope race:b of this resource; update the client first.`,
    );

    // A resource update in flight drops race:c; a client update asking for race:c meanwhile waits, then is refused.
    let takeC: ReturnType<typeof call> | undefined;
    await t.sql.begin(async (tx) => {
      assert.equal((await store.lockResource(tx, resource.json.id as string))?.id, resource.json.id);
      await store.updateResource(tx, resource.json.id as string, { scopes: ['race:a', 'race:b'] }, new Date());
      takeC = call('PATCH', clientUrl, { scopes: ['race:a', 'race:b', 'race:c'] });
      await untilBlocked(t.sql, takeC);
    });
    const refused = (await takeC) as Answer;
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error, 'invalid_request');
    assert.deepEqual((await call('GET', clientUrl)).json.scopes, ['race:a', 'race:b']);
    assert.deepEqual((await call('GET', resourceUrl)).json.scopes, ['race:a', 'race:b']);

    // Two resources define race:b for the worker, so either may drop it alone, but not both at once: while one
    // drop is in flight, the other waits, then sees race:b held by the worker with no other resource defining it.
    const twin = await resourceNamed('race-twin', ['race:b']);
    const both = await call('PATCH', clientUrl, {
      audiences: [audienceOf('race'), audienceOf('race-twin')],
    });
    assert.equal(both.status, 200);
    let dropTwin: ReturnType<typeof call> | undefined;
    await t.sql.begin(async (tx) => {
      assert.equal((await store.lockResource(tx, resource.json.id as string))?.id, resource.json.id);
      const dropped = await store.updateResource(tx, resource.json.id as string, { scopes: ['race:a'] }, new Date());
      assert.deepEqual((dropped as store.Resource).scopes, ['race:a']);
      dropTwin = call('PATCH', `/admin/resources/${twin.json.id}`, { scopes: ['race:twin'] });
      await untilBlocked(t.sql, dropTwin);
    });
    assertAdminEnvelope(
      (await dropTwin) as Answer,
      'resource_scope_in_use',
      `Client ${worker.json.client_id} still holds scope race:b of this resource; update the client first.`,
    );
  });

  test('a resource delete waits for a client being provisioned for it, then refuses', async () => {
    const resource = await resourceNamed('race-delete', ['race:read']);
    await resourceNamed('race-other', ['other:read']);
    const worker = await serviceClient('race-delete-worker', ['race-other'], ['other:read']);
    // A client update in flight provisions the worker for the resource; the DELETE meanwhile waits, then refuses.
    let removal: ReturnType<typeof call> | undefined;
    await t.sql.begin(async (tx) => {
      const audiences = [audienceOf('race-other'), audienceOf('race-delete')];
      await store.lockResourcesByAudience(tx, audiences);
      const current = await store.findClient(tx, worker.json.client_id as string);
      assert.ok(current);
      const provisioned = { ...current, audiences, scopes: ['other:read', 'race:read'] };
      await store.updateClient(tx, current.id, provisioned, new Date());
      removal = call('DELETE', `/admin/resources/${resource.json.id}`, {});
      await untilBlocked(t.sql, removal);
    });
    const refused = (await removal) as Answer;
    assert.equal(refused.status, 409);
    assertAdminEnvelope(
      refused,
      'resource_in_use',
      'A client is still provisioned for this resource; update it first.',
    );
    assert.equal((await call('GET', `/admin/resources/${resource.json.id}`)).status, 200);
  });

  test('two updates of one client both land: the second waits for the first and builds on it', async () => {
    await resourceNamed('race-merge', ['merge:a', 'merge:b']);
    const worker = await serviceClient('race-merge-worker', ['race-merge'], ['merge:a']);
    const clientUrl = `/admin/clients/${worker.json.client_id}`;
    let widen: ReturnType<typeof call> | undefined;
    await t.sql.begin(async (tx) => {
      const current = await store.lockClient(tx, worker.json.client_id as string);
      assert.ok(current);
      await store.updateClient(tx, current.id, { ...current, name: 'Renamed worker' }, new Date());
      widen = call('PATCH', clientUrl, { scopes: ['merge:a', 'merge:b'] });
      await untilBlocked(t.sql, widen);
    });
    assert.equal(((await widen) as Answer).status, 200);
    const after = await call('GET', clientUrl);
    assert.equal(after.json.name, 'Renamed worker', 'the first update is not overwritten by the second');
    assert.deepEqual(after.json.scopes, ['merge:a', 'merge:b']);
  });
});
