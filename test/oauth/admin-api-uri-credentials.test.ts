// URIs with user credentials (RFC 3986 §3.2.1 deprecates `user:password@`): refused as redirect URIs, post-logout
// redirect URIs and resource audiences, on creation and on PATCH, with a field-specific problem; nothing changes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, assertAdminError, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

const CREDENTIALS = 'Must not contain user credentials.';
/** How the envelope's description names each field these tests refuse (src/http/validation-messages.ts). */
const LABELS: Record<string, string> = {
  'body.redirect_uris.0': 'Redirect URIs, entry 1',
  'body.redirect_uris.1': 'Redirect URIs, entry 2',
  'body.post_logout_redirect_uris.0': 'Sign-out redirect URIs, entry 1',
  'body.post_logout_redirect_uris.1': 'Sign-out redirect URIs, entry 2',
  'body.audience': 'Audience',
};

describe('administration API: URIs with user credentials', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);

  const shop = await call('POST', '/admin/applications', {
    identifier: 'shop',
    name: 'Shop',
    environment: 'production',
  });
  const web = await call('POST', '/admin/clients', {
    application_id: shop.json.id,
    name: 'Shop web',
    kind: 'web',
    redirect_uris: ['https://shop.example.test/cb'],
    post_logout_redirect_uris: ['https://shop.example.test/bye'],
    scopes: ['openid'],
  });
  assert.equal(web.status, 201);

  /** Asserts a 400 naming `path` alone, and that no row and no audit record changed. */
  async function refused(method: 'POST' | 'PATCH', url: string, body: Record<string, unknown>, path: string) {
    const before = await registrySnapshot(t);
    const r = await call(method, url, body);
    const description = `${LABELS[path]}: must not contain user credentials.`;
    assertAdminError(r, 400, 'invalid_request', description, [{ path, problem: CREDENTIALS }]);
    assert.deepEqual(await registrySnapshot(t), before, 'nothing changed');
  }

  const clientBody = (changes: Record<string, unknown>) => ({
    application_id: shop.json.id,
    name: 'c',
    kind: 'web',
    redirect_uris: ['https://shop.example.test/cb'],
    scopes: ['openid'],
    ...changes,
  });

  for (const [name, uri] of [
    ['user and password', 'https://user:pass@shop.example.test/cb'],
    ['a user name alone', 'https://user@shop.example.test/cb'],
    ['a password alone', 'https://:pass@shop.example.test/cb'],
  ])
    test(`POST /admin/clients refuses a redirect URI with ${name}: 400 naming body.redirect_uris.1`, async () => {
      await refused(
        'POST',
        '/admin/clients',
        clientBody({ redirect_uris: ['https://shop.example.test/cb', uri] }),
        'body.redirect_uris.1',
      );
    });

  test('POST /admin/clients refuses a post-logout redirect URI with credentials', async () => {
    await refused(
      'POST',
      '/admin/clients',
      clientBody({ post_logout_redirect_uris: ['https://user:pass@shop.example.test/bye'] }),
      'body.post_logout_redirect_uris.0',
    );
  });

  test('POST /admin/clients refuses credentials on a native loopback redirect URI', async () => {
    await refused(
      'POST',
      '/admin/clients',
      clientBody({ kind: 'native', redirect_uris: ['http://user:pass@127.0.0.1/cb'] }),
      'body.redirect_uris.0',
    );
  });

  test('PATCH /admin/clients/{id} refuses credentials in redirect and post-logout URIs, leaving the client', async () => {
    const url = `/admin/clients/${web.json.client_id}`;
    await refused('PATCH', url, { redirect_uris: ['https://user:pass@shop.example.test/cb'] }, 'body.redirect_uris.0');
    await refused(
      'PATCH',
      url,
      { post_logout_redirect_uris: ['https://shop.example.test/bye', 'https://user:pass@shop.example.test/bye'] },
      'body.post_logout_redirect_uris.1',
    );
    const { client_secret: _, ...shown } = web.json;
    assert.deepEqual((await call('GET', url)).json, shown);
  });

  for (const audience of ['https://user:pass@api.example.test/', 'https://user@api.example.test/'])
    test(`POST /admin/resources refuses the audience ${audience}: 400 naming body.audience`, async () => {
      await refused('POST', '/admin/resources', { audience, name: 'API', scopes: ['orders:read'] }, 'body.audience');
    });
});
