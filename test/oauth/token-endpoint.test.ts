import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { updateClientSecret } from '../../src/admin/store.ts';
import { tokenHash } from '../../src/crypto/primitives.ts';
import { CACHE_SECONDS } from '../../src/oauth/client-directory.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { revokeIdentityGrants } from '../../src/oauth/store.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, obtainCode, pkcePair, postForm } from '../helpers/oauth-flow.ts';

describe('POST /oauth/token grant_type=authorization_code', async () => {
  const t = await startTestApp();
  const key = t.secrets.clientSecret;
  const { client, secret } = await makeClient(t.sql, key);
  const { client: other, secret: otherSecret } = await makeClient(t.sql, key);
  const { client: spa } = await makeClient(t.sql, key, { kind: 'browser' });
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);
  const redirectUri = 'https://app.example.test/callback';

  const exchange = (code: string, verifier: string, overrides: Record<string, string> = {}) =>
    postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      ...overrides,
    });

  test('exchanges a code for access, ID and refresh tokens, never cached', async () => {
    const { verifier, challenge } = pkcePair();
    const r = await exchange(await obtainCode(t, { client, cookie, challenge }), verifier);
    assert.equal(r.status, 200);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.deepEqual(Object.keys(r.json).sort(), [
      'access_token',
      'expires_in',
      'id_token',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    assert.equal(r.json.token_type, 'Bearer');
    assert.equal(r.json.expires_in, 600);
    assert.equal(r.json.scope, 'openid profile email offline_access');
  });

  test('a public client exchanges without a secret and gets no refresh token without offline_access', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client: spa, cookie, challenge, scope: 'openid' });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: spa.id,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.refresh_token, undefined);
    assert.ok(r.json.id_token);
  });

  test('rejects a wrong code_verifier with invalid_grant and leaves the code usable', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const wrong = await exchange(code, pkcePair().verifier);
    assertEnvelope(wrong, 400, 'invalid_grant', 'code_verifier does not match the code_challenge');
    assert.equal((await exchange(code, verifier)).status, 200);
  });

  test('rejects a missing code_verifier with invalid_request', async () => {
    const { challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: redirectUri,
    });
    assertEnvelope(r, 400, 'invalid_request', 'code_verifier is required');
  });

  test('rejects a reused code with invalid_grant and revokes every token issued from it', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    const again = await exchange(code, verifier);
    assertEnvelope(
      again,
      400,
      'invalid_grant',
      'The authorization code was already used; every token issued from it is revoked',
    );
    const introspected = await postForm(t, '/oauth/introspect', {
      client_id: client.id,
      client_secret: secret as string,
      token: first.json.access_token as string,
    });
    assert.deepEqual(introspected.json, { active: false });
    const refreshed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.id,
      client_secret: secret as string,
      refresh_token: first.json.refresh_token as string,
    });
    assertEnvelope(refreshed, 400, 'invalid_grant', 'The refresh token has been revoked');
    const [audit] = await t.sql`select event, details from audit_events where event = 'oauth.grant_revoked'`;
    assert.deepEqual(audit?.details, { reason: 'authorization_code_reuse' });
  });

  test('rejects an expired code with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    t.clock.advance(61);
    assertEnvelope(await exchange(code, verifier), 400, 'invalid_grant', 'The authorization code has expired');
  });

  test('rejects a code issued to another client with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier, { client_id: other.id, client_secret: otherSecret as string });
    assertEnvelope(r, 400, 'invalid_grant', 'The authorization code was issued to another client');
  });

  test('rejects a redirect_uri other than the authorization request’s with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier, { redirect_uri: 'https://app.example.test/other' });
    assertEnvelope(r, 400, 'invalid_grant', 'redirect_uri does not match the one in the authorization request');
  });

  test('concurrent double exchange of one code: exactly one wins', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const results = await Promise.all(Array.from({ length: 6 }, () => exchange(code, verifier)));
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    for (const r of results.filter((r) => r.status !== 200)) assert.equal(r.json.error, 'invalid_grant');
  });

  test('refuses HTTP Basic client authentication with invalid_client naming the form body', async () => {
    const r = await postForm(
      t,
      '/oauth/token',
      { grant_type: 'authorization_code', code: 'x' },
      {
        authorization: `Basic ${Buffer.from(`${client.id}:${secret}`).toString('base64')}`,
      },
    );
    assertEnvelope(
      r,
      401,
      'invalid_client',
      'HTTP Basic client authentication is not supported: send client_id and client_secret in the form body',
    );
  });

  test('refuses a wrong client secret with invalid_client', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    assertEnvelope(
      await exchange(code, verifier, { client_secret: 'nope' }),
      401,
      'invalid_client',
      'Unknown client or wrong credentials',
    );
  });

  test('never writes a secret, code or token to the log', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier);
    for (const value of [secret as string, code, verifier, r.json.access_token, r.json.refresh_token, r.json.id_token])
      assert.ok(!t.logs.text.includes(String(value)));
    assert.ok(t.logs.text.includes('/oauth/token'));
  });

  test('refuses an unknown or missing grant_type, and a JSON body', async () => {
    assertEnvelope(
      await postForm(t, '/oauth/token', { grant_type: 'password' }),
      400,
      'unsupported_grant_type',
      'grant_type password is not supported',
    );
    assertEnvelope(await postForm(t, '/oauth/token', {}), 400, 'invalid_request', 'grant_type is required');
    const json = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(json.statusCode, 415);
    const repeated = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=a&grant_type=b',
    });
    assert.equal(JSON.parse(repeated.body).error_description, 'Parameter grant_type is included more than once');
  });
});

describe('POST /oauth/token grant_type=refresh_token', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));

  const start = async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: client.redirectUris[0] as string,
      code_verifier: verifier,
    });
    return r.json.refresh_token as string;
  };
  const refresh = (token: string) =>
    postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.id,
      client_secret: secret as string,
      refresh_token: token,
    });

  test('rotates on every use; replay after the grace window revokes the family, newest token included', async () => {
    const first = await start();
    const second = await refresh(first);
    assert.equal(second.status, 200);
    assert.notEqual(second.json.refresh_token, first);
    assert.equal(second.json.id_token, undefined);
    const third = await refresh(second.json.refresh_token as string);
    assert.equal(third.status, 200);
    t.clock.advance(6);
    assertEnvelope(
      await refresh(first),
      400,
      'invalid_grant',
      'The refresh token was already used; its whole token family is revoked',
    );
    assertEnvelope(
      await refresh(third.json.refresh_token as string),
      400,
      'invalid_grant',
      'The refresh token has been revoked',
    );
  });

  test('concurrent refresh of one token: one rotation, the parallel retry gets the same successor', async () => {
    const token = await start();
    const results = await Promise.all(Array.from({ length: 4 }, () => refresh(token)));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(new Set(results.map((r) => r.json.refresh_token)).size, 1);
    const [live] = await t.sql`
      select count(*)::int as n from oauth_refresh_tokens
      where rotated_at is null and grant_id = (select grant_id from oauth_refresh_tokens where token_hash = ${tokenHash(token)})`;
    assert.equal(live?.n, 1);
  });

  test('revoking an identity’s grants (for the identity module) stops its refresh tokens', async () => {
    const other = await makeIdentity(t.sql);
    const { cookie: otherCookie } = await makeSession(t, other);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie: otherCookie, challenge });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: client.redirectUris[0] as string,
      code_verifier: verifier,
    });
    assert.equal(await revokeIdentityGrants(t.sql, other, t.clock.now()), 1);
    assertEnvelope(
      await refresh(r.json.refresh_token as string),
      400,
      'invalid_grant',
      'The refresh token has been revoked',
    );
  });

  test('refuses a refresh token presented by another client without revoking it', async () => {
    const token = await start();
    const { client: other, secret: otherSecret } = await makeClient(t.sql, t.secrets.clientSecret);
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: other.id,
      client_secret: otherSecret as string,
      refresh_token: token,
    });
    assertEnvelope(r, 400, 'invalid_grant', 'The refresh token is invalid');
    assert.equal((await refresh(token)).status, 200);
  });
});

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
