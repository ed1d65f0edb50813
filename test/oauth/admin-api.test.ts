import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { describeField } from '../../src/http/validation-messages.ts';
import { adminCaller, assertAdminEnvelope } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';

describe('administration API: /admin/applications, /admin/clients, /admin/resources', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);

  const call = adminCaller(t, admin.cookie);
  const envelope = assertAdminEnvelope;

  const prod = await call('POST', '/admin/applications', {
    identifier: 'shop',
    name: 'Shop',
    environment: 'production',
  });
  const dev = await call('POST', '/admin/applications', {
    identifier: 'shop-dev',
    name: 'Shop dev',
    environment: 'development',
  });
  const api = await call('POST', '/admin/resources', {
    audience: 'https://api.example.test/',
    name: 'API',
    scopes: ['orders:read', 'orders:write'],
  });

  test('creates an application, a resource and lists them', async () => {
    assert.equal(prod.status, 201);
    assert.match(String(prod.json.id), /^app_/);
    assert.equal(prod.json.identifier, 'shop');
    assert.equal(api.status, 201);
    assert.deepEqual(api.json.scopes, ['orders:read', 'orders:write']);
    const list = await call('GET', '/admin/applications');
    assert.equal((list.json.applications as unknown[]).length, 2);
    const one = await call('GET', `/admin/resources/${api.json.id}`);
    assert.equal(one.json.audience, 'https://api.example.test/');
  });

  test('refuses a duplicate application identifier or audience with 409', async () => {
    const again = await call('POST', '/admin/applications', { identifier: 'shop', name: 'x', environment: 'staging' });
    assert.equal(again.status, 409);
    envelope(again, 'application_exists', 'An application with this identifier already exists.');
    const twice = await call('POST', '/admin/resources', {
      audience: 'https://api.example.test/',
      name: 'x',
      scopes: ['a'],
    });
    assert.equal(twice.status, 409);
    envelope(twice, 'resource_exists', 'A resource with this audience already exists.');
  });

  test('shows a confidential client secret once: at creation and at rotation, never on read', async () => {
    const created = await call('POST', '/admin/clients', {
      application_id: prod.json.id,
      name: 'Shop backend',
      kind: 'web',
      redirect_uris: ['https://shop.example.test/callback'],
      scopes: ['openid', 'profile'],
    });
    assert.equal(created.status, 201);
    assert.match(String(created.json.client_id), /^cli_/);
    assert.match(String(created.json.client_secret), /^[A-Za-z0-9_-]{43}$/);
    assert.equal(created.headers['cache-control'], 'no-store');
    const read = await call('GET', `/admin/clients/${created.json.client_id}`);
    assert.equal(read.json.client_secret, undefined);
    const list = await call('GET', '/admin/clients');
    assert.ok(!JSON.stringify(list.json).includes(String(created.json.client_secret)));
    const rotated = await call('POST', `/admin/clients/${created.json.client_id}/secret`, {});
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.json.client_secret, created.json.client_secret);
    const [row] = await t.sql`select secret_hmac from oauth_clients where id = ${String(created.json.client_id)}`;
    assert.notEqual(row?.secret_hmac, rotated.json.client_secret);
    const audit =
      await t.sql`select event, details::text from audit_events where subject = ${String(created.json.client_id)} order by seq`;
    assert.deepEqual(
      audit.map((a) => a.event),
      ['client.created', 'client.secret_rotated'],
    );
    assert.ok(!JSON.stringify(audit).includes(String(rotated.json.client_secret)));
  });

  test('a public client gets no secret and cannot rotate one', async () => {
    const created = await call('POST', '/admin/clients', {
      application_id: prod.json.id,
      name: 'SPA',
      kind: 'browser',
      redirect_uris: ['https://shop.example.test/spa'],
      scopes: ['openid'],
    });
    assert.equal(created.status, 201);
    assert.equal(created.json.client_secret, undefined);
    const rotated = await call('POST', `/admin/clients/${created.json.client_id}/secret`, {});
    assert.equal(rotated.status, 400);
    envelope(rotated, 'invalid_request', 'A browser client is public and has no secret to rotate');
  });

  const clientCases: [string, Record<string, unknown>, string, string][] = [
    ['an unknown kind', { kind: 'robot' }, 'body.kind', 'Choose one of browser, native, web, service.'],
    ['a relative redirect URI', { redirect_uris: ['/cb'] }, 'body.redirect_uris.0', 'Must be an absolute URI.'],
    [
      'a fragment',
      { redirect_uris: ['https://shop.example.test/cb#x'] },
      'body.redirect_uris.0',
      'Must not contain a fragment.',
    ],
    [
      'plain http',
      { redirect_uris: ['http://shop.example.test/cb'] },
      'body.redirect_uris.0',
      'Must use https (http only for loopback on native clients or localhost in development applications).',
    ],
    [
      'localhost outside development',
      { redirect_uris: ['http://localhost:3000/cb'] },
      'body.redirect_uris.0',
      'Must use https (http only for loopback on native clients or localhost in development applications).',
    ],
    ['no redirect URI', { redirect_uris: [] }, 'body.redirect_uris', 'A web client needs at least one redirect URI.'],
    [
      'a native http redirect to a host other than loopback',
      { kind: 'native', redirect_uris: ['http://app.example.test/cb'] },
      'body.redirect_uris.0',
      'Must use https (http only for loopback on native clients or localhost in development applications).',
    ],
    [
      'a private-use scheme on a browser client',
      { kind: 'browser', redirect_uris: ['com.example.app:/cb'] },
      'body.redirect_uris.0',
      'Must use https.',
    ],
    [
      'a private-use scheme not in reverse-domain form',
      { kind: 'native', redirect_uris: ['myapp:/cb'] },
      'body.redirect_uris.0',
      'Must use https, loopback http, or a private-use scheme in reverse-domain form (com.example.app:/path).',
    ],
    [
      'a localhost post-logout URI outside development',
      { post_logout_redirect_uris: ['http://localhost:3000/bye'] },
      'body.post_logout_redirect_uris.0',
      'Must use https (http only for loopback on native clients or localhost in development applications).',
    ],
    [
      'a malformed scope',
      { scopes: ['bad scope'] },
      'body.scopes.0',
      'Use a scope name of printable characters without spaces, quotes or backslashes.',
    ],
    [
      'an unknown scope',
      { scopes: ['openid', 'admin'] },
      'body.scopes.1',
      "Must be one of openid, profile, email, offline_access or a scope of the client's audiences.",
    ],
    ['an unknown field', { colour: 'red' }, 'body.colour', 'This request does not accept this field; remove it.'],
    [
      'an unregistered audience on a web client',
      { audiences: ['https://unregistered.example.test/'] },
      'body.audiences.0',
      'Is not a registered resource audience.',
    ],
    [
      'an unknown application',
      { application_id: 'app_nope' },
      'body.application_id',
      'Is not a registered application.',
    ],
  ];
  for (const [name, change, path, problem] of clientCases)
    test(`refuses a client with ${name}: 400 invalid_request naming ${path}`, async () => {
      const before = await t.sql`select count(*)::int as n from oauth_clients`;
      const r = await call('POST', '/admin/clients', {
        application_id: prod.json.id,
        name: 'c',
        kind: 'web',
        redirect_uris: ['https://shop.example.test/cb'],
        scopes: ['openid'],
        ...change,
      });
      assert.equal(r.status, 400);
      assert.equal(r.json.error, 'invalid_request');
      // The description is every problem found, each as a sentence with its field's label; the first is this one.
      const all = r.json.fields as { path: string; problem: string }[];
      assert.equal(r.json.error_description, all.map(describeField).join(' '));
      assert.deepEqual((r.json.fields as { path: string }[])[0], { path, problem });
      const after = await t.sql`select count(*)::int as n from oauth_clients`;
      assert.equal(after[0]?.n, before[0]?.n);
    });

  test('accepts IPv4 and IPv6 loopback and private-use schemes for native clients, localhost in development', async () => {
    const native = await call('POST', '/admin/clients', {
      application_id: prod.json.id,
      name: 'Desktop',
      kind: 'native',
      redirect_uris: ['http://127.0.0.1/callback', 'http://[::1]:8400/cb', 'com.example.app:/oauth/cb'],
      scopes: ['openid'],
    });
    assert.equal(native.status, 201, JSON.stringify(native.json));
    assert.deepEqual(native.json.redirect_uris, [
      'http://127.0.0.1/callback',
      'http://[::1]:8400/cb',
      'com.example.app:/oauth/cb',
    ]);
    const local = await call('POST', '/admin/clients', {
      application_id: dev.json.id,
      name: 'Local',
      kind: 'browser',
      redirect_uris: ['http://localhost:5173/cb'],
      scopes: ['openid'],
    });
    assert.equal(local.status, 201);
  });

  const serviceCases: [string, Record<string, unknown>, string, string][] = [
    ['no audiences', { audiences: [] }, 'body.audiences', 'A service client must be provisioned with audiences.'],
    [
      'an unregistered audience',
      { audiences: ['https://other.example.test/'] },
      'body.audiences.0',
      'Is not a registered resource audience.',
    ],
    [
      'a scope its audiences do not define',
      { scopes: ['orders:delete'] },
      'body.scopes.0',
      'Is not a scope of the provisioned audiences.',
    ],
    [
      'redirect URIs',
      { redirect_uris: ['https://x.example.test/cb'] },
      'body.redirect_uris',
      'Must be empty for a service client.',
    ],
  ];
  for (const [name, change, path, problem] of serviceCases)
    test(`refuses a service client with ${name}`, async () => {
      const r = await call('POST', '/admin/clients', {
        application_id: prod.json.id,
        name: 's',
        kind: 'service',
        audiences: ['https://api.example.test/'],
        scopes: ['orders:read'],
        ...change,
      });
      assert.equal(r.status, 400);
      // The description is every problem found, each as a sentence with its field's label; the first is this one.
      const all = r.json.fields as { path: string; problem: string }[];
      assert.equal(r.json.error_description, all.map(describeField).join(' '));
      assert.deepEqual(all[0], { path, problem });
    });

  test('refuses a resource whose audience is not an absolute URI', async () => {
    const r = await call('POST', '/admin/resources', { audience: 'orders-api', name: 'x', scopes: ['a'] });
    assert.equal(r.status, 400);
    envelope(r, 'invalid_request', 'Audience: must be an absolute URI.', [
      { path: 'body.audience', problem: 'Must be an absolute URI.' },
    ]);
  });

  const otherCases: [string, 'POST' | 'PATCH', string, Record<string, unknown>, string, string][] = [
    [
      'an application with an unknown environment',
      'POST',
      '/admin/applications',
      { identifier: 'qa-app', name: 'QA', environment: 'qa' },
      'body.environment',
      'Choose one of development, staging, production.',
    ],
    [
      'a resource audience with a fragment',
      'POST',
      '/admin/resources',
      { audience: 'https://api2.example.test/#orders', name: 'x', scopes: ['a'] },
      'body.audience',
      'Must not contain a fragment.',
    ],
    [
      'a resource audience that is the issuer (the audience of user access tokens)',
      'POST',
      '/admin/resources',
      { audience: new URL(t.config.server.issuer).href, name: 'x', scopes: ['a'] },
      'body.audience',
      'Must not be the issuer, which is the audience of user access tokens.',
    ],
    [
      'an application PATCH to an unknown environment',
      'PATCH',
      `/admin/applications/${prod.json.id}`,
      { environment: 'qa' },
      'body.environment',
      'Choose one of development, staging, production.',
    ],
    [
      'a resource PATCH with a malformed scope',
      'PATCH',
      `/admin/resources/${api.json.id}`,
      { scopes: ['bad scope'] },
      'body.scopes.0',
      'Use a scope name of printable characters without spaces, quotes or backslashes.',
    ],
  ];
  for (const [name, method, url, body, path, problem] of otherCases)
    test(`refuses ${name}: 400 invalid_request naming ${path}, changing nothing`, async () => {
      const before = await t.sql`
        select (select count(*) from oauth_applications)::int as apps, (select count(*) from oauth_resources)::int as res,
               (select max(updated_at) from oauth_applications) as app_at, (select max(updated_at) from oauth_resources) as res_at`;
      const r = await call(method, url, body);
      assert.equal(r.status, 400);
      envelope(r, 'invalid_request', describeField({ path, problem }), [{ path, problem }]);
      const after = await t.sql`
        select (select count(*) from oauth_applications)::int as apps, (select count(*) from oauth_resources)::int as res,
               (select max(updated_at) from oauth_applications) as app_at, (select max(updated_at) from oauth_resources) as res_at`;
      assert.deepEqual(after, before);
    });

  test('validates a client PATCH like a creation and leaves the client unchanged', async () => {
    const created = await call('POST', '/admin/clients', {
      application_id: prod.json.id,
      name: 'Patched',
      kind: 'browser',
      redirect_uris: ['https://shop.example.test/patched'],
      scopes: ['openid'],
    });
    const url = `/admin/clients/${created.json.client_id}`;
    const r = await call('PATCH', url, { redirect_uris: ['https://shop.example.test/cb#x'], scopes: ['admin'] });
    assert.equal(r.status, 400);
    const both =
      "Redirect URIs, entry 1: must not contain a fragment. Scopes, entry 1: must be one of openid, profile, email, offline_access or a scope of the client's audiences.";
    envelope(r, 'invalid_request', both, [
      { path: 'body.redirect_uris.0', problem: 'Must not contain a fragment.' },
      {
        path: 'body.scopes.0',
        problem: "Must be one of openid, profile, email, offline_access or a scope of the client's audiences.",
      },
    ]);
    assert.deepEqual((await call('GET', url)).json, created.json);
  });

  test('updates and deletes, refusing to delete what is still in use', async () => {
    const service = await call('POST', '/admin/clients', {
      application_id: prod.json.id,
      name: 'Worker',
      kind: 'service',
      audiences: ['https://api.example.test/'],
      scopes: ['orders:read'],
    });
    assert.equal(service.status, 201);
    const busy = await call('DELETE', `/admin/resources/${api.json.id}`, {});
    assert.equal(busy.status, 409);
    envelope(busy, 'resource_in_use', 'A client is still provisioned for this resource; update it first.');
    const inUse = await call('DELETE', `/admin/applications/${prod.json.id}`, {});
    assert.equal(inUse.status, 409);
    envelope(inUse, 'application_in_use', 'The application still has clients; delete them first.');
    const renamed = await call('PATCH', `/admin/clients/${service.json.client_id}`, { name: 'Worker 2' });
    assert.equal(renamed.json.name, 'Worker 2');
    assert.equal((await call('DELETE', `/admin/clients/${service.json.client_id}`, {})).status, 204);
    assert.equal((await call('GET', `/admin/clients/${service.json.client_id}`)).status, 404);
    const gone = await call('PATCH', `/admin/applications/app_missing`, { name: 'x' });
    envelope(gone, 'not_found', 'No such application');
  });

  test('refuses anyone but an aal2 owner, before looking at the body', async () => {
    const anonymous = await call('POST', '/admin/applications', { bogus: true }, '');
    assert.equal(anonymous.status, 401);
    envelope(anonymous, 'login_required', 'Sign in first.');
    const user = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, user);
    const member = await call('GET', '/admin/clients', undefined, cookie);
    assert.equal(member.status, 403);
    envelope(member, 'admin_required', 'Only an owner of the organization may do this');
  });
});
