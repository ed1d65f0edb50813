// POST /oauth/introspect answers a request from the node's caches when they hold every fact (introspection.ts):
// the answer must be the one the database would give, and every refusal must stand on that path too.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Sql } from '../../src/db/pool.ts';
import { ACCOUNT_RULE } from '../../src/login/local/lockout.ts';
import { createClientDirectory } from '../../src/oauth/client-directory.ts';
import { createClientKeys } from '../../src/oauth/client-keys.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { createClientThrottle } from '../../src/oauth/client-throttle.ts';
import { answerIntrospection } from '../../src/oauth/introspection.ts';
import { createAccessTokenVerifier } from '../../src/oauth/tokens.ts';
import { startTestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import {
  makeAudiencePeer,
  makeClient,
  makeIdentity,
  makeServiceClient,
  makeSession,
} from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, clientCredentialsToken, postForm, userTokens } from '../helpers/oauth-flow.ts';

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

  test('answerIntrospection answers in JSON text without a promise once every fact is cached', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie });
    const clock = t.clock.now;
    const deps = {
      sql: t.sql,
      tokenStates: t.services.tokenStates,
      verifier: createAccessTokenVerifier({ keyring: t.services.keyring, issuer: t.config.server.issuer, clock }),
      issuer: t.config.server.issuer,
      clock,
      clients: createClientDirectory({ sql: t.sql, clock }),
      clientSecretKey: t.secrets.clientSecret,
      clientThrottle: createClientThrottle({ sql: t.sql, audit: t.deps.audit, clock }),
      assertions: {
        usedJtis: t.services.usedJtis,
        issuer: t.config.server.issuer,
        clock,
        clientKeys: createClientKeys(),
      },
    };
    const form = { client_id: client.id, client_secret: secret, token: access_token };
    const context = { clientIp: '192.0.2.1', requestId: 'test' };
    const first = answerIntrospection(deps, form, context);
    assert.ok(first instanceof Promise, 'nothing of this client or token is cached yet');
    const answer = await first;
    assert.equal(JSON.parse(answer).active, true);
    const second = answerIntrospection(deps, form, context);
    assert.equal(second, answer);
  });

  test('with the caller and the token cached, a wrong secret is still 401 invalid_client', async () => {
    const { access_token } = await userTokens(t, { client, secret, cookie });
    assert.equal((await introspect(access_token)).json.active, true);
    const wrong = await introspectAs(client.id, 'x'.repeat(43), access_token);
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
    t.clock.advance(expires_in - 1);
    // Fills every cache again (the key set, the client and the token state expire sooner than the token)...
    assert.equal((await introspect(access_token)).json.active, true);
    // ...so this second is the caches' to judge.
    t.clock.advance(1);
    assert.deepEqual((await introspect(access_token)).json, { active: false });
  });

  test('a service client provisioned for the audience of a cached token sees it active', async () => {
    const owner = await makeServiceClient(t.sql, t.secrets.clientSecret);
    const peer = await makeAudiencePeer(t.sql, t.secrets.clientSecret, owner.resource.audience);
    const issued = await clientCredentialsToken(t, owner);
    assert.equal(issued.status, 200);
    const token = issued.json.access_token as string;
    const byOwner = await introspectAs(owner.client.id, owner.secret, token);
    assert.equal(byOwner.json.active, true);
    for (let i = 0; i < 2; i += 1)
      assert.deepEqual((await introspectAs(peer.client.id, peer.secret, token)).json, byOwner.json);
  });

  test('a new secret works at once while the node still caches the client with its old one', async () => {
    const rotating = await makeClient(t.sql, t.secrets.clientSecret);
    const { access_token } = await userTokens(t, { ...rotating, cookie });
    assert.equal((await introspectAs(rotating.client.id, rotating.secret, access_token)).json.active, true);
    const next = newClientSecret();
    await t.sql`update oauth_clients set secret_hmac = ${clientSecretHmac(t.secrets.clientSecret, next)}
      where id = ${rotating.client.id}`;
    assert.equal((await introspectAs(rotating.client.id, next, access_token)).json.active, true);
  });

  test('a caller locked out from its address is refused with 429 even with the right secret and everything cached', async () => {
    const locked = await makeClient(t.sql, t.secrets.clientSecret);
    const { access_token } = await userTokens(t, { ...locked, cookie });
    const from = (address: string, clientSecret: string) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/introspect',
        remoteAddress: address,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          client_id: locked.client.id,
          client_secret: clientSecret,
          token: access_token,
        }).toString(),
      });
    const attacker = '203.0.113.70';
    assert.equal((await from(attacker, locked.secret as string)).statusCode, 200, 'caller and token cached');
    let status = 401;
    for (let i = 0; i <= ACCOUNT_RULE.threshold && status === 401; i += 1)
      status = (await from(attacker, 'x'.repeat(43))).statusCode;
    assert.equal(status, 429);
    const refused = await from(attacker, locked.secret as string);
    assert.equal(refused.statusCode, 429);
    assert.equal(JSON.parse(refused.body).error, 'rate_limited');
    assert.equal((await from('198.51.100.70', locked.secret as string)).statusCode, 200, 'other addresses go on');
  });
});
