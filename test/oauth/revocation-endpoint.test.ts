import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, postForm, userTokens } from '../helpers/oauth-flow.ts';

describe('POST /oauth/revoke', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { client: other, secret: otherSecret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));

  const issued = () => userTokens(t, { client, secret, cookie });
  const revoke = (token: string, as = { client_id: client.id, client_secret: secret as string }) =>
    postForm(t, '/oauth/revoke', { ...as, token });
  const introspect = (token: string) =>
    postForm(t, '/oauth/introspect', { client_id: client.id, client_secret: secret as string, token });

  test('answers 200 for an unknown opaque token or an unknown JWT, changing nothing', async () => {
    const before = await t.sql`select count(*)::int as n from oauth_revoked_access_tokens`;
    for (const token of ['never-issued', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln']) {
      const r = await revoke(token);
      assert.equal(r.status, 200, token);
      assert.deepEqual(r.json, {});
    }
    const after = await t.sql`select count(*)::int as n from oauth_revoked_access_tokens`;
    assert.equal(after[0]?.n, before[0]?.n);
  });

  test('answers 200 for another client’s tokens and leaves them active', async () => {
    const tokens = await issued();
    const foreign = { client_id: other.id, client_secret: otherSecret as string };
    assert.equal((await revoke(tokens.refresh_token, foreign)).status, 200);
    assert.equal((await revoke(tokens.access_token, foreign)).status, 200);
    assert.equal((await introspect(tokens.refresh_token)).json.active, true);
    assert.equal((await introspect(tokens.access_token)).json.active, true);
  });

  test('refuses HTTP Basic with 401 invalid_client and WWW-Authenticate', async () => {
    const tokens = await issued();
    const basic = `Basic ${Buffer.from(`${client.id}:${secret}`).toString('base64')}`;
    const r = await postForm(t, '/oauth/revoke', { token: tokens.refresh_token }, { authorization: basic });
    assertEnvelope(
      r,
      401,
      'invalid_client',
      'HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)',
    );
    assert.equal(r.headers['www-authenticate'], 'Basic realm="gatehouse"');
    assert.equal((await introspect(tokens.refresh_token)).json.active, true, 'nothing was revoked');
  });
});
