import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

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

  // Other nodes learn of a revocation by NOTIFY; the node that revoked must not wait for its own to come back.
  for (const kind of ['access_token', 'refresh_token'] as const)
    test(`a revoked ${kind} introspects inactive at once on the node that revoked it, before any NOTIFY`, async () => {
      const tokens = await issued();
      assert.equal((await introspect(tokens.access_token)).json.active, true, 'the token state is cached now');
      const cache = t.services.tokenStates;
      assert.equal(cache.listening, true);
      // Hold back the LISTEN connection's invalidations, as a slow notification would.
      const invalidate = cache.invalidate;
      cache.invalidate = () => {};
      try {
        assert.equal((await revoke(tokens[kind])).status, 200);
        assert.equal((await introspect(tokens.access_token)).json.active, false);
      } finally {
        cache.invalidate = invalidate;
      }
    });

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

  // RFC 7009 §2.1: "the request is refused and the client is informed of the error".
  for (const kind of ['refresh_token', 'access_token'] as const)
    test(`refuses another client’s ${kind} with 400 unauthorized_client and leaves it working`, async () => {
      const tokens = await issued();
      const foreign = { client_id: other.id, client_secret: otherSecret as string };
      const revokedBefore = await t.sql`select count(*)::int as n from oauth_revoked_access_tokens`;
      const refused = await revoke(tokens[kind], foreign);
      assertEnvelope(
        refused,
        400,
        'unauthorized_client',
        'The token was issued to another client; only that client may revoke it',
      );
      const revokedAfter = await t.sql`select count(*)::int as n from oauth_revoked_access_tokens`;
      assert.equal(revokedAfter[0]?.n, revokedBefore[0]?.n, 'no access token was listed as revoked');
      assert.equal((await introspect(tokens.refresh_token)).json.active, true);
      assert.equal((await introspect(tokens.access_token)).json.active, true);
      const refreshed = await refreshTokens(t, client, secret, tokens.refresh_token);
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
      const [audit] = await t.sql`
        select actor, subject, request_id, details from audit_events
        where event = 'oauth.revocation_refused' and request_id = ${String(refused.headers['x-request-id'])}`;
      const grantId = decodeJwt(tokens.access_token).gid;
      assert.deepEqual(
        { ...audit },
        {
          actor: other.id,
          subject: grantId,
          request_id: refused.headers['x-request-id'],
          details: { token_type: kind, token_client_id: client.id },
        },
      );
    });

  test('the token’s own client still revokes it after another client was refused', async () => {
    const tokens = await issued();
    const foreign = { client_id: other.id, client_secret: otherSecret as string };
    assert.equal((await revoke(tokens.refresh_token, foreign)).status, 400);
    assert.equal((await revoke(tokens.refresh_token)).status, 200);
    assert.equal((await introspect(tokens.refresh_token)).json.active, false);
    assert.equal((await introspect(tokens.access_token)).json.active, false);
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
    assert.equal(
      r.headers['www-authenticate'],
      `Basic realm="gatehouse", error="invalid_client", error_description="HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)"`,
    );
    assert.equal((await introspect(tokens.refresh_token)).json.active, true, 'nothing was revoked');
  });
});
