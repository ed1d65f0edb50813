// Two nodes (two apps, two pools) on one database: a token cached as live on node B stops being live there on the
// next request after node A (or anyone) changes its state, because the change's NOTIFY reaches B. Tests wait for
// that notification with a marker (tokenStateSynced) or for a named event; they never sleep.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import postgres from 'postgres';
import type { Config } from '../../src/config/schema.ts';
import { createPool, type Executor, type Sql } from '../../src/db/pool.ts';
import { TokenStateCache } from '../../src/oauth/token-state-cache.ts';
import { listenForTokenState } from '../../src/oauth/token-state-listener.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { startTestApp, type TestApp, TestClock } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { adminUrl, createTestDatabase } from '../helpers/database.ts';
import {
  makeAdmin,
  makeAudiencePeer,
  makeClient,
  makeIdentity,
  makeServiceClient,
  makeSession,
} from '../helpers/oauth-fixtures.ts';
import {
  assertEnvelope,
  authorizedCode,
  clientCredentialsToken,
  postForm,
  refreshTokens,
  userTokens,
} from '../helpers/oauth-flow.ts';
import { nextTokenStateEvent, tokenStateSynced } from '../helpers/token-state.ts';

/** Changes rows without firing triggers, so no NOTIFY is sent: what a lost notification looks like to a node. */
const silently = (sql: Sql, change: (tx: Executor) => Promise<unknown>) =>
  sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await change(tx);
  });

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString()) as { gid: string; jti: string };

async function twoNodes(config: Config) {
  const db = await createTestDatabase();
  const clock = new TestClock();
  const poolB = createPool(db.url, { max: 5, connectTimeoutSeconds: 10 });
  after(() => poolB.end({ timeout: 5 }));
  const nodeA = await startTestApp({ sql: db.sql, clock, config });
  const nodeB = await startTestApp({ sql: poolB, clock, config });
  return { nodeA, nodeB, clock };
}

const userinfo = async (node: TestApp, accessToken: string) => {
  const r = await node.app.inject({
    method: 'GET',
    url: '/oauth/userinfo',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return { status: r.statusCode, headers: r.headers, json: JSON.parse(r.body) as Record<string, unknown> };
};

const refusedBy = async (node: TestApp, accessToken: string) =>
  assertEnvelope(
    await userinfo(node, accessToken),
    401,
    'invalid_token',
    'The access token is invalid, expired or revoked',
  );

describe('token state cache: /oauth/introspect and /oauth/userinfo on node B after changes on node A', async () => {
  // A long maximum age, so only a notification (never expiry) can explain what node B sees.
  const { nodeA, nodeB, clock } = await twoNodes(
    makeConfig({
      tokens: { state_cache_seconds: 300 },
      // Self-service (PATCH /account/profile) needs a configured delivery; nothing is sent in these tests.
      self_service: { enabled: true },
      delivery: {
        kind: 'smtp',
        from: 'id@acme-robotics.dev',
        smtp: {
          host: 'smtp.acme-robotics.dev',
          port: 587,
          security: 'starttls',
          username: 'u',
          password_file: '/etc/gatehouse/secrets/smtp-password',
        },
      },
    }),
  );
  const { client, secret } = await makeClient(nodeA.sql, nodeA.secrets.clientSecret);
  const sub = await makeIdentity(nodeA.sql, { displayName: 'Ada Lovelace' });
  const { cookie } = await makeSession(nodeA, sub);
  const issue = () => userTokens(nodeA, { client, secret, cookie });
  const introspect = (node: TestApp, token: string) =>
    postForm(node, '/oauth/introspect', { client_id: client.id, client_secret: secret as string, token });
  const cachedActiveOnB = async (accessToken: string) => {
    assert.equal((await introspect(nodeB, accessToken)).json.active, true);
    assert.equal((await userinfo(nodeB, accessToken)).status, 200);
  };

  test('both nodes listen before serving, and node B keeps answering from its cache until notified', async () => {
    assert.equal(nodeA.services.tokenStates.listening, true);
    assert.equal(nodeB.services.tokenStates.listening, true);
    const tokens = await issue();
    await cachedActiveOnB(tokens.access_token);
    // A revocation that sends no NOTIFY: node B cannot know, so its cached answer stands...
    await silently(
      nodeA.sql,
      (tx) => tx`update oauth_grants set revoked_at = now() where id = ${claimsOf(tokens.access_token).gid}`,
    );
    await tokenStateSynced(nodeB);
    assert.equal((await introspect(nodeB, tokens.access_token)).json.active, true, 'served from the cache');
    assert.deepEqual((await introspect(nodeA, tokens.access_token)).json, { active: false }, 'node A reads through');
    // ...until the entry's maximum age has passed.
    clock.advance(300);
    assert.deepEqual((await introspect(nodeB, tokens.access_token)).json, { active: false });
    await refusedBy(nodeB, tokens.access_token);
  });

  test('an access token revoked at /oauth/revoke on node A is inactive and refused on node B', async () => {
    const tokens = await issue();
    await cachedActiveOnB(tokens.access_token);
    const notified = nextTokenStateEvent(
      nodeB.services.tokenStates,
      (e) => e.type === 'invalidated' && e.key === `jti:${claimsOf(tokens.access_token).jti}`,
    );
    const revoked = await postForm(nodeA, '/oauth/revoke', {
      client_id: client.id,
      client_secret: secret as string,
      token: tokens.access_token,
    });
    assert.equal(revoked.status, 200);
    await notified;
    assert.deepEqual((await introspect(nodeB, tokens.access_token)).json, { active: false });
    await refusedBy(nodeB, tokens.access_token);
  });

  test('a refresh token revoked at /oauth/revoke on node A ends its access tokens on node B', async () => {
    const tokens = await issue();
    await cachedActiveOnB(tokens.access_token);
    const notified = nextTokenStateEvent(
      nodeB.services.tokenStates,
      (e) => e.type === 'invalidated' && e.key === `grant:${claimsOf(tokens.access_token).gid}`,
    );
    await postForm(nodeA, '/oauth/revoke', {
      client_id: client.id,
      client_secret: secret as string,
      token: tokens.refresh_token,
    });
    await notified;
    assert.deepEqual((await introspect(nodeB, tokens.access_token)).json, { active: false });
    await refusedBy(nodeB, tokens.access_token);
  });

  test('a refresh replay on node A revokes the family on node B, the newest access token included', async () => {
    const tokens = await issue();
    const rotated = await refreshTokens(nodeA, client, secret, tokens.refresh_token);
    assert.equal(rotated.status, 200);
    await cachedActiveOnB(tokens.access_token);
    await cachedActiveOnB(rotated.json.access_token as string);
    clock.advance(nodeA.config.tokens.refresh_token_grace_seconds + 1);
    assert.equal((await refreshTokens(nodeA, client, secret, tokens.refresh_token)).status, 400);
    await tokenStateSynced(nodeB);
    await refusedBy(nodeB, tokens.access_token);
    assert.deepEqual((await introspect(nodeB, rotated.json.access_token as string)).json, { active: false });
  });

  test('a reused code on node A ends the tokens issued from it on node B', async () => {
    const { exchange } = await authorizedCode(nodeA, { client, secret, cookie });
    const first = await exchange();
    await cachedActiveOnB(first.json.access_token as string);
    assert.equal((await exchange()).status, 400);
    await tokenStateSynced(nodeB);
    assert.deepEqual((await introspect(nodeB, first.json.access_token as string)).json, { active: false });
    await refusedBy(nodeB, first.json.access_token as string);
  });

  test('a client deleted through the admin API on node A: its client-credentials tokens are inactive on node B', async () => {
    const service = await makeServiceClient(nodeA.sql, nodeA.secrets.clientSecret, ['read']);
    const auditor = await makeAudiencePeer(nodeA.sql, nodeA.secrets.clientSecret, service.resource.audience);
    const cc = await clientCredentialsToken(nodeA, service);
    const asAuditor = () =>
      postForm(nodeB, '/oauth/introspect', {
        client_id: auditor.client.id,
        client_secret: auditor.secret,
        token: cc.json.access_token as string,
      });
    assert.equal((await asAuditor()).json.active, true);
    const admin = await makeAdmin(nodeA);
    const notified = nextTokenStateEvent(
      nodeB.services.tokenStates,
      (e) => e.type === 'invalidated' && e.key === `client:${service.client.id}`,
    );
    assert.equal(
      (await adminCaller(nodeA, admin.cookie)('DELETE', `/admin/clients/${service.client.id}`, {})).status,
      204,
    );
    await notified;
    assert.deepEqual((await asAuditor()).json, { active: false });
  });

  test('an identity suspended through the admin API on node A is refused by userinfo on node B', async () => {
    const person = await makeIdentity(nodeA.sql);
    const session = await makeSession(nodeA, person);
    const tokens = await userTokens(nodeA, { client, secret, cookie: session.cookie });
    await cachedActiveOnB(tokens.access_token);
    const admin = await makeAdmin(nodeA);
    const suspended = await adminCaller(nodeA, admin.cookie)('POST', `/admin/identities/${person}/suspend`, {});
    assert.equal(suspended.status, 200);
    await tokenStateSynced(nodeB);
    await refusedBy(nodeB, tokens.access_token);
    assert.deepEqual((await introspect(nodeB, tokens.access_token)).json, { active: false });
  });

  test('a display name changed at PATCH /account/profile on node A shows in userinfo on node B', async () => {
    const tokens = await issue();
    assert.equal((await userinfo(nodeB, tokens.access_token)).json.name, 'Ada Lovelace');
    const changed = await nodeA.app.inject({
      method: 'PATCH',
      url: '/account/profile',
      headers: { cookie, 'content-type': 'application/json', origin: 'http://localhost:8080' },
      payload: JSON.stringify({ display_name: 'Ada King' }),
    });
    assert.equal(changed.statusCode, 200, changed.body);
    await tokenStateSynced(nodeB);
    assert.equal((await userinfo(nodeB, tokens.access_token)).json.name, 'Ada King');
  });

  test('while the LISTEN connection is down the cache is bypassed; it is cleared when listening again', async () => {
    const tokens = await issue();
    await cachedActiveOnB(tokens.access_token);
    const cache = nodeB.services.tokenStates;
    const duringLoss: { listening: boolean; size: number; readable: boolean }[] = [];
    const lost = nextTokenStateEvent(cache, (e) => {
      if (e.type === 'lost')
        duringLoss.push({ listening: cache.listening, size: cache.size, readable: cache.beginRead() !== null });
      return e.type === 'lost';
    });
    const relistened = nextTokenStateEvent(cache, (e) => e.type === 'listening');
    const killed = await nodeB.sql`
      select pg_terminate_backend(pid) as done from pg_stat_activity
      where datname = current_database() and query like 'listen %' and pid <> pg_backend_pid()`;
    assert.ok(killed.length >= 1, 'the listen connections were found');
    await lost;
    assert.deepEqual(duringLoss, [{ listening: false, size: 0, readable: false }]);
    // A revocation whose notification nobody receives, made while node B is not listening: whether B is still
    // down (it reads through) or already back (it cleared its cache), the next answer is read from the database.
    await silently(
      nodeA.sql,
      (tx) => tx`update oauth_grants set revoked_at = now() where id = ${claimsOf(tokens.access_token).gid}`,
    );
    assert.deepEqual((await introspect(nodeB, tokens.access_token)).json, { active: false });
    await relistened;
    assert.equal(cache.listening, true);
    const next = await issue();
    await cachedActiveOnB(next.access_token);
    assert.ok(cache.size > 0, 'the cache is used again');
    await tokenStateSynced(nodeB);
  });
});

describe('token state cache: tokens.state_cache_seconds = 0', async () => {
  const { nodeA, nodeB } = await twoNodes(makeConfig({ tokens: { state_cache_seconds: 0 } }));
  const { client, secret } = await makeClient(nodeA.sql, nodeA.secrets.clientSecret);
  const sub = await makeIdentity(nodeA.sql);
  const { cookie } = await makeSession(nodeA, sub);

  test('disables the cache: no LISTEN, and a change that sends no notification is seen on the next request', async () => {
    assert.equal(nodeB.services.tokenStates.enabled, false);
    assert.equal(nodeB.services.tokenStates.listening, false);
    const tokens = await userTokens(nodeA, { client, secret, cookie });
    const introspect = () =>
      postForm(nodeB, '/oauth/introspect', {
        client_id: client.id,
        client_secret: secret as string,
        token: tokens.access_token,
      });
    assert.equal((await introspect()).json.active, true);
    assert.equal((await userinfo(nodeB, tokens.access_token)).status, 200);
    assert.equal(nodeB.services.tokenStates.size, 0);
    await silently(
      nodeA.sql,
      (tx) => tx`update oauth_grants set revoked_at = now() where id = ${claimsOf(tokens.access_token).gid}`,
    );
    assert.deepEqual((await introspect()).json, { active: false });
    await refusedBy(nodeB, tokens.access_token);
  });
});

describe('token state listener: LISTEN connection lost while the database refuses connections', async () => {
  // A listener that never recovers would wait forever: fail instead.
  test('keeps the cache bypassed while re-listening fails, then listens on a fresh connection and clears it', {
    timeout: 20_000,
  }, async () => {
    const db = await createTestDatabase();
    const cache = new TokenStateCache({ maxAgeSeconds: 5, clock: () => new Date() });
    let failed: () => void = () => {};
    const firstFailure = new Promise<void>((resolve) => {
      failed = resolve;
    });
    const listener = await listenForTokenState(db.sql, cache, { onError: () => failed(), retryMs: 20 });
    after(() => listener.close());
    assert.equal(cache.listening, true);
    cache.store(cache.beginRead(), 'jti:j1', true);
    const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    after(() => admin.end({ timeout: 5 }));
    await admin.unsafe(`alter database ${db.name} allow_connections false`);
    const lost = nextTokenStateEvent(cache, (e) => e.type === 'lost');
    await admin`
      select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db.name} and query like 'listen %'`;
    await lost;
    // postgres.js's own re-listen fails and it gives up; ours fails too and keeps trying.
    await firstFailure;
    assert.equal(cache.listening, false);
    assert.equal(cache.get('jti:j1'), undefined);
    assert.equal(cache.beginRead(), null);
    const listening = nextTokenStateEvent(cache, (e) => e.type === 'listening');
    await admin.unsafe(`alter database ${db.name} allow_connections true`);
    await listening;
    assert.equal(cache.listening, true);
    assert.equal(cache.size, 0);
  });
});
