import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { updateClientSecret } from '../../src/clients/store.ts';
import { CACHE_SECONDS } from '../../src/oauth/client-directory.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeServiceClient } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, postForm } from '../helpers/oauth-flow.ts';

describe('POST /oauth/token grant_type=client_credentials', async () => {
  const t = await startTestApp();
  const { client, secret, resource } = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read', 'write']);
  const { resource: foreign } = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
  const { client: web, secret: webSecret } = await makeClient(t.sql, t.secrets.clientSecret);
  const cc = (overrides: Record<string, string> = {}) =>
    postForm(t, '/oauth/token', {
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: secret,
      scope: 'read',
      resource: resource.audience,
      ...overrides,
    });

  test('issues only an access token for a provisioned audience and scope, with sub = client id', async () => {
    const r = await cc({ scope: 'read write' });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    const claims = JSON.parse(
      Buffer.from((r.json.access_token as string).split('.')[1] as string, 'base64url').toString(),
    );
    assert.equal(claims.sub, client.id);
    assert.equal(claims.aud, resource.audience);
    assert.equal(claims.scope, 'read write');
  });

  test('refuses an unprovisioned audience with invalid_target', async () => {
    assertEnvelope(
      await cc({ resource: foreign.audience }),
      400,
      'invalid_target',
      'The client is not provisioned for this resource',
    );
  });

  test('refuses an unprovisioned scope with invalid_scope instead of narrowing', async () => {
    assertEnvelope(
      await cc({ scope: 'read admin' }),
      400,
      'invalid_scope',
      'The client is not provisioned for scope admin at this resource',
    );
  });

  test('refuses a missing resource, a non-service client and a wrong secret', async () => {
    const { resource: _r, ...rest } = { resource: '' };
    assertEnvelope(
      await postForm(t, '/oauth/token', {
        grant_type: 'client_credentials',
        client_id: client.id,
        client_secret: secret,
        scope: 'read',
        ...rest,
      }),
      400,
      'invalid_request',
      'resource is required: name the audience the token is for (RFC 8707)',
    );
    assertEnvelope(
      await cc({ client_id: web.id, client_secret: webSecret as string }),
      400,
      'unauthorized_client',
      'Only service clients may use client_credentials',
    );
    assertEnvelope(await cc({ client_secret: 'wrong' }), 401, 'invalid_client', 'Unknown client or wrong credentials');
  });

  test('a rotated secret takes effect on every node within the client cache window', async () => {
    assert.equal((await cc()).status, 200);
    const rotated = newClientSecret();
    await updateClientSecret(t.sql, client.id, clientSecretHmac(t.secrets.clientSecret, rotated), t.clock.now());
    assert.equal((await cc()).status, 200, 'cached for up to CACHE_SECONDS');
    t.clock.advance(CACHE_SECONDS + 1);
    assertEnvelope(await cc(), 401, 'invalid_client', 'Unknown client or wrong credentials');
    assert.equal((await cc({ client_secret: rotated })).status, 200);
  });
});
