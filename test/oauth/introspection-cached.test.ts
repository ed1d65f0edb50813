// POST /oauth/introspect answers a request from the node's caches when they hold every fact (introspection.ts):
// the answer must be the one the database would give, and every refusal must stand on that path too.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Sql } from '../../src/db/pool.ts';
import { startTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, postForm, userTokens } from '../helpers/oauth-flow.ts';

/** The test database's pool, counting every statement sent through it. */
async function countingStatements(): Promise<{ sql: Sql; statements: () => number }> {
  const { sql } = await createTestDatabase();
  let statements = 0;
  const counted = new Proxy(sql, {
    apply(target, thisArg, args: unknown[]) {
      statements += 1;
      return Reflect.apply(target, thisArg, args);
    },
  });
  return { sql: counted, statements: () => statements };
}

describe('POST /oauth/introspect from the node caches', async () => {
  const { sql, statements } = await countingStatements();
  const t = await startTestApp({ sql });
  const made = await makeClient(t.sql, t.secrets.clientSecret);
  const client = made.client;
  const secret = made.secret as string;
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));
  const introspectAs = (id: string, clientSecret: string | null, token: string) =>
    postForm(t, '/oauth/introspect', {
      client_id: id,
      ...(clientSecret ? { client_secret: clientSecret } : {}),
      token,
    });
  const introspect = (token: string) => introspectAs(client.id, secret, token);

  test('a token asked about again is answered without a statement, as the database answered it', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie, scope: 'openid profile' });
    const first = await introspect(access_token);
    assert.equal(first.status, 200);
    assert.equal(first.json.active, true);
    assert.equal(first.headers['cache-control'], 'no-store');
    const before = statements();
    const again = await introspect(access_token);
    assert.equal(statements() - before, 0, 'no statement for an answer the caches hold');
    assert.equal(again.status, 200);
    assert.deepEqual(again.json, first.json);
    assert.equal(again.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(again.headers['cache-control'], 'no-store');
  });

  test('with the caller and the token cached, a wrong secret is still 401 invalid_client', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie });
    assert.equal((await introspect(access_token)).json.active, true);
    const wrong = await introspectAs(client.id, `${secret.slice(0, -1)}A`, access_token);
    assertEnvelope(wrong, 401, 'invalid_client', 'Unknown client or wrong credentials');
    const none = await introspectAs(client.id, null, access_token);
    assertEnvelope(none, 401, 'invalid_client', 'Unknown client or wrong credentials');
  });

  test('with the caller and the token cached, a request without a token is 400 invalid_request', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie });
    assert.equal((await introspect(access_token)).json.active, true);
    const r = await postForm(t, '/oauth/introspect', { client_id: client.id, client_secret: secret });
    assertEnvelope(r, 400, 'invalid_request', 'token is required');
  });

  test('a cached token is inactive for a client it was not issued to, and for a service of another audience', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie });
    assert.equal((await introspect(access_token)).json.active, true);
    const other = await makeClient(t.sql, t.secrets.clientSecret);
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret);
    for (const caller of [other, service]) {
      // Twice: the second time the caller is cached too.
      for (let i = 0; i < 2; i += 1) {
        const r = await introspectAs(caller.client.id, caller.secret as string, access_token);
        assert.equal(r.status, 200);
        assert.deepEqual(r.json, { active: false });
      }
    }
  });

  test('a public client is refused with 401 invalid_client, cached or not', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie });
    const browser = await makeClient(t.sql, t.secrets.clientSecret, { kind: 'browser' });
    for (let i = 0; i < 2; i += 1)
      assertEnvelope(
        await introspectAs(browser.client.id, null, access_token),
        401,
        'invalid_client',
        'Only confidential clients may introspect tokens',
      );
  });

  test('a cached token past its expiry is inactive', async () => {
    const { access_token, expires_in } = await userTokens(t, { client, secret, cookie });
    assert.equal((await introspect(access_token)).json.active, true);
    assert.equal((await introspect(access_token)).json.active, true);
    t.clock.advance(expires_in);
    assert.deepEqual((await introspect(access_token)).json, { active: false });
  });
});
