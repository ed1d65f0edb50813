// Three Gatehouse nodes on one database behind HAProxy (trusted-proxy mode): every single-use or counted fact holds
// across nodes because it is decided by one statement in PostgreSQL (DESIGN.md "Stateless nodes"), and what nodes
// cache (signing keys, token state) follows a change made on another node within the documented time.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import type { Client } from '../src/clients/store.ts';
import { signupLike } from './delivery/fixtures.ts';
import { makeAccount } from './helpers/accounts.ts';
import { TestClock } from './helpers/app.ts';
import { runCli } from './helpers/cli.ts';
import { makeConfig, scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';
import { startMultiNode } from './helpers/multi-node.ts';
import { call, type HttpAnswer, setCookie, until } from './helpers/node-http.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from './helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair } from './helpers/oauth-flow.ts';

const database = await createTestDatabase();
const dir = scratchDir();

// The webhook receiver the nodes deliver the outbox to; it records each delivery's webhook-id.
const deliveries: string[] = [];
const receiver = createServer((request, response) => {
  deliveries.push(String(request.headers['webhook-id']));
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
after(() => {
  receiver.closeAllConnections();
  receiver.close();
});
const receiverPort = (receiver.address() as { port: number }).port;

const cluster = await startMultiNode({
  dir,
  databaseUrl: database.url,
  count: 3,
  extra: [
    '[self_service]',
    'enabled = true',
    '[delivery]',
    'kind = "webhook"',
    'from = "no-reply@acme.test"',
    `[delivery.webhook]`,
    `url = "http://localhost:${receiverPort}/hook"`,
  ].join('\n'),
});
after(() => cluster.stop());
const [a, b, c] = cluster.nodes.map((node) => node.url) as [string, string, string];
const config = makeConfig({
  self_service: { enabled: true },
  delivery: {
    kind: 'webhook',
    from: 'no-reply@acme.test',
    webhook: { url: `http://localhost:${receiverPort}/hook` },
  },
});
const t = { sql: database.sql, config, clock: new TestClock() };

const { client, secret } = await makeClient(database.sql, cluster.secrets.clientSecret);
const clientSecret = secret as string;

/** A code for a signed-in person, issued by `node`, with the verifier that redeems it. */
async function codeFrom(node: string) {
  const { cookie } = await makeSession(t, await makeIdentity(database.sql));
  const { verifier, challenge } = pkcePair();
  const answer = await call(node, 'GET', authorizeUrl({ client, challenge }), { headers: { cookie } });
  assert.equal(answer.status, 302, answer.text);
  const code = new URL(answer.headers.get('location') as string).searchParams.get('code');
  assert.ok(code);
  return { code, verifier };
}

const redeem = (node: string, issued: { code: string; verifier: string }) =>
  call(node, 'POST', '/oauth/token', {
    form: {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: clientSecret,
      code: issued.code,
      redirect_uri: client.redirectUris[0] as string,
      code_verifier: issued.verifier,
    },
  });

const refresh = (node: string, token: string, forClient: Client = client) =>
  call(node, 'POST', '/oauth/token', {
    form: { grant_type: 'refresh_token', client_id: forClient.id, client_secret: clientSecret, refresh_token: token },
  });

function assertInvalidGrant(answer: HttpAnswer, description: string) {
  assert.equal(answer.status, 400);
  assert.deepEqual(answer.json, {
    error: 'invalid_grant',
    error_description: description,
    request_id: answer.headers.get('x-request-id'),
  });
}

describe('three nodes behind HAProxy', () => {
  test('the load balancer spreads requests over every node and writes X-Forwarded-For for them', async () => {
    for (let i = 0; i < 6; i += 1) {
      // A client's own X-Forwarded-For is replaced by the proxy: the node sees one address, the proxy's peer.
      const answer = await call(cluster.balancer.url, 'GET', '/health/ready', {
        forwardedFor: '198.51.100.7, 10.0.0.1',
        headers: { connection: 'close' },
      });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.json, { status: 'ok' });
    }
    for (const node of cluster.nodes)
      assert.ok(
        node.logs.some((r) => r.path === '/health/ready' && r.status === 200 && r.ip === '127.0.0.1'),
        'every node answered through the balancer with the address the proxy wrote',
      );
    const direct = await call(a, 'GET', '/health/ready', { forwardedFor: null });
    assert.equal(direct.status, 400, 'a node in trusted-proxy mode refuses a request the proxy did not forward');
  });

  test('a code issued on node A is redeemed on node B', async () => {
    const answer = await redeem(b, await codeFrom(a));
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(Object.keys(answer.json).sort(), [
      'access_token',
      'expires_in',
      'id_token',
      'refresh_token',
      'scope',
      'token_type',
    ]);
  });

  test('the same code raced on nodes A and B succeeds exactly once; the loser gets invalid_grant', async () => {
    for (let round = 0; round < 3; round += 1) {
      const issued = await codeFrom(c);
      const answers = await Promise.all([redeem(a, issued), redeem(b, issued)]);
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, 400]);
      const loser = answers.find((r) => r.status === 400) as HttpAnswer;
      assertInvalidGrant(loser, 'The authorization code was already used; every token issued from it is revoked');
    }
  });

  test('one refresh token raced on all nodes rotates once; replaying it after the successor was used revokes the family', async () => {
    const first = await redeem(a, await codeFrom(a));
    const original = first.json.refresh_token as string;
    const answers = await Promise.all([refresh(a, original), refresh(b, original), refresh(c, original)]);
    const successors = new Set(answers.filter((r) => r.status === 200).map((r) => r.json.refresh_token));
    // Honest parallel retries within the grace window get the one successor (DESIGN.md "Refresh token").
    assert.equal(successors.size, 1, `one rotation, not ${successors.size}: ${answers.map((r) => r.text)}`);
    for (const answer of answers.filter((r) => r.status !== 200))
      assertInvalidGrant(answer, 'The refresh token was already used; its whole token family is revoked');
    const successor = [...successors][0] as string;
    const next = await refresh(b, successor);
    assert.equal(next.status, 200);
    // The successor was used: whoever presents the original now is not a retry (RFC 9700 §4.14.2).
    assertInvalidGrant(
      await refresh(c, original),
      'The refresh token was already used; its whole token family is revoked',
    );
    assertInvalidGrant(await refresh(a, next.json.refresh_token as string), 'The refresh token has been revoked');
  });

  test('sign-in failures are counted across nodes: eight raced wrong passwords give five 401 and three 429', async () => {
    const account = await makeAccount(database.sql, cluster.secrets, config, { totp: true });
    const forwardedFor = '203.0.113.9';
    const starts = await Promise.all(
      Array.from({ length: 8 }, () =>
        call(cluster.balancer.url, 'POST', '/auth/login', { json: { subject: account.email } }),
      ),
    );
    const nodes = [a, b, c];
    const answers = await Promise.all(
      starts.map((started, i) =>
        call(nodes[i % 3] as string, 'POST', '/auth/mfa/verify', {
          forwardedFor,
          headers: { cookie: setCookie(started, 'gatehouse_login') },
          json: {
            transaction_id: started.json.transaction_id,
            challenge_id: started.json.challenge_id,
            password: 'a wrong guess of it 7',
            totp: '000000',
          },
        }),
      ),
    );
    assert.deepEqual(
      answers.map((r) => r.status).sort(),
      [401, 401, 401, 401, 401, 429, 429, 429],
      answers.map((r) => r.text).join('\n'),
    );
    const [throttled] = await database.sql<{ n: number }[]>`
      select count(*)::int as n from audit_events where event = 'signin.throttled'`;
    assert.equal(throttled?.n, 3);
  });

  test('outbox messages queued while three nodes poll are each delivered exactly once', async () => {
    const identityId = await makeIdentity(database.sql);
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1)
      ids.push(
        (
          await signupLike(
            database.sql,
            { config, deliveryKey: cluster.secrets.delivery, clock: t.clock, identityId },
            `someone${i}@example.test`,
          )
        ).messageId,
      );
    await until('every message delivered', async () => {
      const [row] = await database.sql<{ n: number }[]>`
        select count(*)::int as n from outbox_messages where id = any(${ids}) and state = 'sent'`;
      return row?.n === ids.length ? true : undefined;
    });
    const rows = await database.sql<{ attempts: number }[]>`
      select attempts from outbox_messages where id = any(${ids})`;
    assert.deepEqual(
      rows.map((r) => r.attempts),
      ids.map(() => 1),
      'each message was claimed once',
    );
    assert.equal(deliveries.length, ids.length);
    assert.equal(new Set(deliveries).size, ids.length, 'no message reached the receiver twice');
  });

  test('gatehouse keys rotate on node A: node B publishes the new key and signs with it within seconds', async () => {
    const service = await makeServiceClient(database.sql, cluster.secrets.clientSecret);
    const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0] as string, 'base64url').toString()).kid;
    const tokenOn = async (node: string) => {
      const answer = await call(node, 'POST', '/oauth/token', {
        form: {
          grant_type: 'client_credentials',
          client_id: service.client.id,
          client_secret: service.secret,
          scope: 'read',
          resource: service.resource.audience,
        },
      });
      assert.equal(answer.status, 200, answer.text);
      return answer.json.access_token as string;
    };
    const before = kidOf(await tokenOn(b));
    const rotated = await runCli(['keys', 'rotate', '--config', cluster.configFiles[0] as string], {
      env: { DATABASE_URL: database.url },
    });
    assert.equal(rotated.code, 0, rotated.stderr);
    const kid = /Added signing key (\S+);/.exec(rotated.stdout)?.[1];
    assert.ok(kid && kid !== before);
    const [record] = await database.sql`
      select actor, subject from audit_events where event = 'signing_key.rotated' order by occurred_at desc limit 1`;
    assert.equal(record?.subject, kid, 'the rotation is audited with the new key id');
    assert.match(String(record?.actor), /^operator:/);
    const started = Date.now();
    await until(
      'node B publishes the new key',
      async () => {
        const jwks = await call(b, 'GET', '/.well-known/jwks.json');
        const kids = (jwks.json.keys as { kid: string }[]).map((k) => k.kid);
        return kids.includes(kid) && kids.includes(before) ? true : undefined;
      },
      5000,
    );
    await until(
      'node B signs with the new key',
      async () => (kidOf(await tokenOn(b)) === kid ? true : undefined),
      5000,
    );
    assert.ok(Date.now() - started < 5000);
  });

  test('an access token revoked on node A is refused by introspection on node B within seconds', async () => {
    const tokens = (await redeem(a, await codeFrom(a))).json;
    const introspect = (node: string) =>
      call(node, 'POST', '/oauth/introspect', {
        form: { client_id: client.id, client_secret: clientSecret, token: tokens.access_token as string },
      });
    // Twice on B, so the second answer may come from B's token state cache.
    assert.equal((await introspect(b)).json.active, true);
    assert.equal((await introspect(b)).json.active, true);
    const revoked = await call(a, 'POST', '/oauth/revoke', {
      form: { client_id: client.id, client_secret: clientSecret, token: tokens.access_token as string },
    });
    assert.equal(revoked.status, 200);
    const started = Date.now();
    await until(
      'node B refuses the token',
      async () => {
        const answer = await introspect(b);
        return answer.json.active === false ? answer : undefined;
      },
      // tokens.state_cache_seconds (5) bounds it should a notification be lost; normally it is one round trip.
      5000,
    );
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual((await introspect(c)).json, { active: false });
  });
});
