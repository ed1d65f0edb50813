import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, adminFixtures, assertAdminEnvelope, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: reading, updating and deleting applications, clients and resources', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);

  /** The audit trail of one subject, oldest first, as event + actor + details. */
  const auditOf = async (subject: unknown) =>
    (
      await t.sql`select event, actor, request_id, details from audit_events where subject = ${String(subject)} order by id`
    ).map((a) => ({
      event: a.event,
      actor: a.actor,
      details: a.details,
      hasRequestId: typeof a.request_id === 'string',
    }));
  const by = (event: string, details: Record<string, unknown> = {}) => ({
    event,
    actor: admin.sub,
    details,
    hasRequestId: true,
  });

  test('GET one application; PATCH and DELETE it, each change audited', async () => {
    const created = await call('POST', '/admin/applications', {
      identifier: 'crm',
      name: 'CRM',
      environment: 'staging',
    });
    const url = `/admin/applications/${created.json.id}`;
    const one = await call('GET', url);
    assert.equal(one.status, 200);
    assert.deepEqual(one.json, created.json);
    const patched = await call('PATCH', url, { name: 'CRM 2', environment: 'production' });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.name, 'CRM 2');
    assert.equal(patched.json.environment, 'production');
    assert.equal(patched.json.identifier, 'crm');
    const removed = await call('DELETE', url, {});
    assert.equal(removed.status, 204);
    const gone = await call('GET', url);
    assert.equal(gone.status, 404);
    assertAdminEnvelope(gone, 'not_found', 'No such application');
    assert.deepEqual(await auditOf(created.json.id), [
      by('application.created', { identifier: 'crm' }),
      by('application.updated', { fields: 'name,environment' }),
      by('application.deleted'),
    ]);
  });

  test('PATCH a resource’s name and scopes; DELETE it once no client uses it; each change audited', async () => {
    const created = await call('POST', '/admin/resources', {
      audience: 'https://billing.example.test/',
      name: 'Billing',
      scopes: ['invoices:read'],
    });
    const url = `/admin/resources/${created.json.id}`;
    const patched = await call('PATCH', url, { name: 'Billing API', scopes: ['invoices:read', 'invoices:write'] });
    assert.equal(patched.status, 200);
    assert.equal(patched.json.name, 'Billing API');
    assert.deepEqual(patched.json.scopes, ['invoices:read', 'invoices:write']);
    assert.equal(patched.json.audience, 'https://billing.example.test/');
    assert.deepEqual((await call('GET', url)).json, patched.json);
    assert.equal((await call('DELETE', url, {})).status, 204);
    assert.equal((await call('GET', url)).status, 404);
    assert.deepEqual(await auditOf(created.json.id), [
      by('resource.created', { audience: 'https://billing.example.test/' }),
      by('resource.updated', { fields: 'name,scopes' }),
      by('resource.deleted'),
    ]);
  });

  test('PATCH refuses to drop a resource scope that a provisioned client still holds, and changes nothing', async () => {
    const { resource, serviceClient } = adminFixtures(call);
    const ledger = await resource('ledger', ['ledger:read', 'ledger:write', 'shared:read']);
    await resource('reports', ['shared:read']);
    const worker = await serviceClient('ledger-worker', ['ledger', 'reports'], ['ledger:write', 'shared:read']);
    const url = `/admin/resources/${ledger.json.id}`;

    const refused = await call('PATCH', url, { name: 'Ledger API', scopes: ['ledger:read', 'shared:read'] });
    assert.equal(refused.status, 409);
    assertAdminEnvelope(
      refused,
      'resource_scope_in_use',
      `Client ${worker.json.client_id} still holds scope ledger:write of this resource; update the client first.`,
    );
    assert.deepEqual((await call('GET', url)).json, ledger.json, 'neither the name nor the scopes changed');

    // shared:read is also a scope of Reports, which the worker is provisioned for too, so Ledger may drop it.
    const dropped = await call('PATCH', url, { scopes: ['ledger:read', 'ledger:write'] });
    assert.equal(dropped.status, 200);
    assert.deepEqual(dropped.json.scopes, ['ledger:read', 'ledger:write']);
    // A scope no client holds goes freely; so does a name change, and adding scopes.
    assert.equal((await call('PATCH', url, { scopes: ['ledger:write'] })).status, 200);
    assert.equal(
      (await call('PATCH', url, { name: 'Ledger v2', scopes: ['ledger:write', 'ledger:admin'] })).status,
      200,
    );
    // Once the client lets go of the scope, the resource may drop it.
    const released = await call('PATCH', `/admin/clients/${worker.json.client_id}`, { scopes: ['shared:read'] });
    assert.equal(released.status, 200);
    const last = await call('PATCH', url, { scopes: ['ledger:admin'] });
    assert.equal(last.status, 200);
    assert.deepEqual(last.json.scopes, ['ledger:admin']);
    assert.equal((await call('PATCH', `/admin/resources/res_missing`, { scopes: ['x'] })).status, 404);
  });

  test('client updates and deletion are audited, without secrets', async () => {
    const app = await call('POST', '/admin/applications', {
      identifier: 'wiki',
      name: 'Wiki',
      environment: 'production',
    });
    const created = await call('POST', '/admin/clients', {
      application_id: app.json.id,
      name: 'Wiki backend',
      kind: 'web',
      redirect_uris: ['https://wiki.example.test/cb'],
      scopes: ['openid'],
    });
    const url = `/admin/clients/${created.json.client_id}`;
    const patched = await call('PATCH', url, { name: 'Wiki server', scopes: ['openid', 'email'] });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.json.scopes, ['openid', 'email']);
    assert.equal((await call('DELETE', url, {})).status, 204);
    const trail = await auditOf(created.json.client_id);
    assert.deepEqual(trail, [
      by('client.created', { kind: 'web', application: app.json.id }),
      by('client.updated', { fields: 'name,scopes' }),
      by('client.deleted'),
    ]);
    assert.ok(!JSON.stringify(trail).includes(String(created.json.client_secret)));
  });
});

describe('PATCH /admin/applications/{id} environment', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);

  const devApp = async (identifier: string) =>
    (await call('POST', '/admin/applications', { identifier, name: identifier, environment: 'development' })).json;
  const addClient = async (applicationId: unknown, body: Record<string, unknown>) =>
    (
      await call('POST', '/admin/clients', {
        application_id: applicationId,
        name: 'Local SPA',
        kind: 'browser',
        scopes: ['openid'],
        ...body,
      })
    ).json;

  test('refuses leaving development with 409 naming the client whose localhost URI would not fit', async () => {
    const app = await devApp('portal');
    const client = await addClient(app.id, {
      redirect_uris: ['https://portal.example.test/cb', 'http://localhost:5173/cb'],
    });
    for (const environment of ['staging', 'production']) {
      const r = await call('PATCH', `/admin/applications/${app.id}`, { environment, name: 'Portal' });
      assert.equal(r.status, 409);
      assertAdminEnvelope(
        r,
        'application_environment_conflict',
        `Client ${client.client_id} (Local SPA) has http://localhost:5173/cb, which a ${environment} application may ` +
          'not use (must use https (http only for loopback on native clients or localhost in development ' +
          'applications)); update or delete the client first',
      );
    }
    const unchanged = await call('GET', `/admin/applications/${app.id}`);
    assert.equal(unchanged.json.environment, 'development');
    assert.equal(unchanged.json.name, 'portal', 'nothing of the refused PATCH was applied');
    const events = await t.sql`select event from audit_events where subject = ${String(app.id)} order by id`;
    assert.deepEqual(
      events.map((e) => e.event),
      ['application.created'],
    );
  });

  test('checks post-logout URIs too, and allows the change once the client is fixed', async () => {
    const app = await devApp('forum');
    const client = await addClient(app.id, {
      redirect_uris: ['https://forum.example.test/cb'],
      post_logout_redirect_uris: ['http://localhost:3000/bye'],
    });
    const refused = await call('PATCH', `/admin/applications/${app.id}`, { environment: 'production' });
    assert.equal(refused.status, 409);
    assert.match(String(refused.json.error_description), /has http:\/\/localhost:3000\/bye/);
    const fixed = await call('PATCH', `/admin/clients/${client.client_id}`, {
      post_logout_redirect_uris: ['https://forum.example.test/bye'],
    });
    assert.equal(fixed.status, 200);
    const moved = await call('PATCH', `/admin/applications/${app.id}`, { environment: 'production' });
    assert.equal(moved.status, 200);
    assert.equal(moved.json.environment, 'production');
  });

  test('keeps native loopback URIs, which every environment allows', async () => {
    const app = await devApp('desktop');
    await addClient(app.id, { kind: 'native', redirect_uris: ['http://127.0.0.1/cb', 'http://[::1]/cb'] });
    const r = await call('PATCH', `/admin/applications/${app.id}`, { environment: 'staging' });
    assert.equal(r.status, 200);
    assert.equal(r.json.environment, 'staging');
  });

  test('a client added to a production application is checked against production', async () => {
    const app = await devApp('kiosk');
    assert.equal((await call('PATCH', `/admin/applications/${app.id}`, { environment: 'production' })).status, 200);
    const r = await call('POST', '/admin/clients', {
      application_id: app.id,
      name: 'Kiosk',
      kind: 'browser',
      redirect_uris: ['http://localhost:8000/cb'],
      scopes: ['openid'],
    });
    assert.equal(r.status, 400);
    assert.equal(
      r.json.error_description,
      'Redirect URIs, entry 1: must use https (http only for loopback on native clients or localhost in development applications).',
    );
  });
});

describe('PATCH of an application, client or resource that changes nothing', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { resource, serviceClient, audienceOf } = adminFixtures(call);

  const app = await call('POST', '/admin/applications', { identifier: 'crm', name: 'CRM', environment: 'staging' });
  const cb = 'https://crm.example.test/cb';
  const web = await call('POST', '/admin/clients', {
    application_id: app.json.id,
    name: 'CRM web',
    kind: 'web',
    redirect_uris: [cb],
    post_logout_redirect_uris: ['https://crm.example.test/bye'],
    scopes: ['openid', 'email'],
  });
  const api = await resource('crm-api', ['crm:read', 'crm:write']);
  const worker = await serviceClient('crm-worker', ['crm-api'], ['crm:read']);
  const { client_secret: _w, ...webShown } = web.json;
  const { client_secret: _s, ...workerShown } = worker.json;

  const cases: [string, string, Record<string, unknown>, Record<string, unknown>][] = [
    ['an empty application PATCH', `/admin/applications/${app.json.id}`, {}, app.json],
    [
      'an application PATCH with its current values',
      `/admin/applications/${app.json.id}`,
      { identifier: 'crm', name: 'CRM', environment: 'staging' },
      app.json,
    ],
    ['an empty client PATCH', `/admin/clients/${web.json.client_id}`, {}, webShown],
    [
      'a client PATCH with its current values, a list entry repeated',
      `/admin/clients/${web.json.client_id}`,
      {
        name: 'CRM web',
        redirect_uris: [cb, cb],
        post_logout_redirect_uris: ['https://crm.example.test/bye'],
        scopes: ['openid', 'email'],
        first_party: false,
      },
      webShown,
    ],
    [
      'a service client PATCH with its current audiences and scopes',
      `/admin/clients/${worker.json.client_id}`,
      { audiences: [audienceOf('crm-api')], scopes: ['crm:read'] },
      workerShown,
    ],
    ['an empty resource PATCH', `/admin/resources/${api.json.id}`, {}, api.json],
    [
      'a resource PATCH with its current values, a scope repeated',
      `/admin/resources/${api.json.id}`,
      { name: 'crm-api', scopes: ['crm:read', 'crm:write', 'crm:read'] },
      api.json,
    ],
  ];
  for (const [name, url, body, current] of cases)
    test(`${name} answers 200 with the current record, writes no audit record and keeps updated_at`, async () => {
      t.clock.advance(60); // a write now would move updated_at
      const before = await registrySnapshot(t);
      const r = await call('PATCH', url, body);
      assert.equal(r.status, 200, JSON.stringify(r.json));
      assert.deepEqual(r.json, current);
      assert.deepEqual(await registrySnapshot(t), before, 'no row and no audit record changed');
    });

  test('a PATCH that changes some of what it sends records only the fields that changed', async () => {
    t.clock.advance(60);
    const url = `/admin/applications/${app.json.id}`;
    const r = await call('PATCH', url, { identifier: 'crm', name: 'CRM 2', environment: 'staging' });
    assert.equal(r.status, 200);
    assert.equal(r.json.name, 'CRM 2');
    assert.notEqual(r.json.updated_at, app.json.updated_at);
    const client = await call('PATCH', `/admin/clients/${web.json.client_id}`, { name: 'CRM web', scopes: ['openid'] });
    assert.equal(client.status, 200);
    const res = await call('PATCH', `/admin/resources/${api.json.id}`, {
      name: 'CRM API',
      scopes: ['crm:read', 'crm:write'],
    });
    assert.equal(res.status, 200);
    const updates = await t.sql`
      select subject, details from audit_events where event like '%.updated' order by id`;
    assert.deepEqual(
      updates.map((u) => [u.subject, u.details]),
      [
        [app.json.id, { fields: 'name' }],
        [web.json.client_id, { fields: 'scopes' }],
        [api.json.id, { fields: 'name' }],
      ],
    );
  });
});
