// Registering a private_key_jwt client through the administration API (RFC 7591 §2 token_endpoint_auth_method,
// jwks, jwks_uri) and a DPoP-bound one (RFC 9449 §5.2 dpop_bound_access_tokens): what is accepted, what is refused
// with the field named, and that a refusal changes nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exportJWK, generateKeyPair } from 'jose';
import { adminCaller, adminFixtures, assertAdminError, registrySnapshot } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin } from '../helpers/oauth-fixtures.ts';

describe('administration API: client keys and DPoP binding', async () => {
  const t = await startTestApp();
  const admin = await makeAdmin(t);
  const call = adminCaller(t, admin.cookie);
  const { resource, serviceClient, audienceOf } = adminFixtures(call);
  await resource('orders', ['orders:read']);
  const worker = await serviceClient('worker', ['orders'], ['orders:read']);
  const keys = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1' };
  const privateJwk = { ...(await exportJWK(keys.privateKey)), kid: 'k1' };
  const create = (fields: Record<string, unknown>) =>
    call('POST', '/admin/clients', {
      application_id: worker.json.application_id,
      name: 'Keyed worker',
      kind: 'service',
      audiences: [audienceOf('orders')],
      scopes: ['orders:read'],
      ...fields,
    });

  test('POST /admin/clients registers a private_key_jwt client with inline keys and no secret', async () => {
    const r = await create({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] } });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.equal(r.json.token_endpoint_auth_method, 'private_key_jwt');
    assert.deepEqual(r.json.jwks, { keys: [publicJwk] });
    assert.equal(r.json.jwks_uri, null);
    assert.equal('client_secret' in r.json, false);
    const rotate = await call('POST', `/admin/clients/${r.json.client_id}/secret`, {});
    assertAdminError(
      rotate,
      400,
      'invalid_request',
      'A private_key_jwt client has no secret to rotate: update its jwks or jwks_uri instead',
    );
    const moved = await call('PATCH', `/admin/clients/${r.json.client_id}`, {
      jwks_uri: 'https://worker.example.test/jwks.json',
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.json));
    assert.equal(moved.json.jwks, null);
    assert.equal(moved.json.jwks_uri, 'https://worker.example.test/jwks.json');
  });

  test('POST /admin/clients refuses a private key in jwks, naming the key, and changes nothing', async () => {
    const before = await registrySnapshot(t);
    const r = await create({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [privateJwk] } });
    const path = 'body.jwks.keys.0';
    const problem = 'must be a public key: private or symmetric key material is never registered';
    assertAdminError(r, 400, 'invalid_request', `Public key, entry 1: ${problem}.`, [
      { path, problem: `M${problem.slice(1)}.` },
    ]);
    assert.deepEqual(await registrySnapshot(t), before);
  });

  test('POST /admin/clients refuses an http jwks_uri outside development and keys without the method', async () => {
    const http = await create({ token_endpoint_auth_method: 'private_key_jwt', jwks_uri: 'http://127.0.0.1/jwks' });
    const problem = 'may use http only to a loopback host in a development application';
    assertAdminError(http, 400, 'invalid_request', `JWKS URL: ${problem}.`, [
      { path: 'body.jwks_uri', problem: `M${problem.slice(1)}.` },
    ]);
    const stray = await create({ jwks: { keys: [publicJwk] } });
    assertAdminError(stray, 400, 'invalid_request', 'Public keys (JWKS): is only for private_key_jwt clients.', [
      { path: 'body.jwks', problem: 'Is only for private_key_jwt clients.' },
    ]);
    const none = await create({ token_endpoint_auth_method: 'none' });
    const noneProblem = 'a service client authenticates with client_secret_post or private_key_jwt';
    assertAdminError(none, 400, 'invalid_request', `Client authentication: ${noneProblem}.`, [
      { path: 'body.token_endpoint_auth_method', problem: `A${noneProblem.slice(1)}.` },
    ]);
  });

  test('POST /admin/clients refuses a back-channel logout URL for a service client or over http', async () => {
    const service = await create({ backchannel_logout_uri: 'https://worker.example.test/bcl' });
    assertAdminError(service, 400, 'invalid_request', 'Back-channel logout URL: must be empty for a service client.', [
      { path: 'body.backchannel_logout_uri', problem: 'Must be empty for a service client.' },
    ]);
    const web = await call('POST', '/admin/clients', {
      application_id: worker.json.application_id,
      name: 'Web',
      kind: 'web',
      redirect_uris: ['https://web.example.test/cb'],
      scopes: ['openid'],
      backchannel_logout_uri: 'http://web.example.test/bcl',
    });
    assertAdminError(web, 400, 'invalid_request', 'Back-channel logout URL: must be an https URL.', [
      { path: 'body.backchannel_logout_uri', problem: 'Must be an https URL.' },
    ]);
  });

  test('PATCH /admin/clients/{id} sets dpop_bound_access_tokens and PAR; the client shows client_secret_post', async () => {
    const r = await call('PATCH', `/admin/clients/${worker.json.client_id}`, {
      dpop_bound_access_tokens: true,
      require_pushed_authorization_requests: true,
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(r.json.dpop_bound_access_tokens, true);
    assert.equal(r.json.require_pushed_authorization_requests, true);
    assert.equal(r.json.token_endpoint_auth_method, 'client_secret_post');
  });
});
