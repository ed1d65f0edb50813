import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { ACCOUNT_RULE, IP_RULE } from '../../src/login/local/lockout.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeAdmin, makeClient, makeServiceClient } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope } from '../helpers/oauth-flow.ts';

describe('POST /oauth/token, /oauth/introspect, /oauth/revoke: failed client authentication is throttled', async () => {
  const t = await startTestApp();
  const service = await makeServiceClient(t.sql, t.secrets.clientSecret);

  /** A form POST from a given address (the socket peer: no trusted proxy in tests). */
  const post = async (url: string, form: Record<string, string>, address: string) => {
    const response = await t.app.inject({
      method: 'POST',
      url,
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(form).toString(),
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      json: JSON.parse(response.body || '{}') as Record<string, unknown>,
    };
  };
  const token = (clientId: string, secret: string, address: string, audience = service.resource.audience) =>
    post(
      '/oauth/token',
      {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        scope: 'read',
        resource: audience,
      },
      address,
    );
  const wrong = 'x'.repeat(43);

  const refused = 'Too many failed client authentications; retry later.';
  const throttled = async (key: string) =>
    (
      await t.sql`
        select count(*)::int as n from audit_events where event = 'attempt.throttled' and details->>'key' = ${key}`
    )[0]?.n;

  test('a client past its failures: 429, audited; from that address even its right secret is refused up front', async () => {
    const attacker = '203.0.113.7';
    for (let i = 1; i <= ACCOUNT_RULE.threshold; i += 1)
      assertEnvelope(
        await token(service.client.id, wrong, attacker),
        401,
        'invalid_client',
        'Unknown client or wrong credentials',
      );
    const locked = await token(service.client.id, wrong, attacker);
    assertEnvelope(locked, 429, 'rate_limited', refused);
    assert.equal(locked.headers['retry-after'], String(ACCOUNT_RULE.baseLockSeconds));
    assert.equal(await throttled(`client:${service.client.id}`), 1);
    // What is counted and audited names the client and the address, never the secret that was tried.
    const [leaked] = await t.sql`
      select count(*)::int as n from audit_events where details::text like ${`%${wrong}%`} or actor like ${`%${wrong}%`}`;
    assert.equal(leaked?.n, 0);
    assert.ok(!t.logs.text.includes(wrong));
    // Guessing from that address stops: the secret is not looked at, and nothing more is counted.
    const counted = await t.sql`select failures from login_throttle where key = ${`client:${attacker}`}`;
    assertEnvelope(await token(service.client.id, service.secret, attacker), 429, 'rate_limited', refused);
    assert.deepEqual(await t.sql`select failures from login_throttle where key = ${`client:${attacker}`}`, counted);
    // Knowing the client id is not enough to shut the client out of its own addresses.
    assert.equal((await token(service.client.id, service.secret, '198.51.100.20')).status, 200);
    t.clock.advance(ACCOUNT_RULE.baseLockSeconds);
    assert.equal((await token(service.client.id, service.secret, attacker)).status, 200);
  });

  test('an address past its failures: each client that then fails there is refused up front, the others go on', async () => {
    const sweeper = '203.0.113.9';
    const victim = await makeServiceClient(t.sql, t.secrets.clientSecret);
    const asVictim = (secret: string) => token(victim.client.id, secret, sweeper, victim.resource.audience);
    for (let i = 1; i <= IP_RULE.threshold; i += 1)
      assert.equal((await token(`cli_guess${i}`, wrong, sweeper)).status, 401, `attempt ${i}`);
    assertEnvelope(await asVictim(wrong), 429, 'rate_limited', refused);
    assertEnvelope(await asVictim(victim.secret), 429, 'rate_limited', refused);
    // Another service behind the same address (a shared egress) is not shut out by the failures of others.
    const neighbour = await makeServiceClient(t.sql, t.secrets.clientSecret);
    assert.equal(
      (await token(neighbour.client.id, neighbour.secret, sweeper, neighbour.resource.audience)).status,
      200,
    );
    t.clock.advance(IP_RULE.baseLockSeconds);
    assert.equal((await asVictim(victim.secret)).status, 200);
  });

  test('unknown client ids count too, at introspection and revocation alike; an 8 KB one is a 401', async () => {
    const prober = '203.0.113.8';
    const probe = (url: string, clientId = 'cli_unknown') =>
      post(url, { client_id: clientId, client_secret: wrong, token: 't' }, prober);
    assertEnvelope(
      await probe('/oauth/introspect', `cli_${randomBytes(6000).toString('base64url')}`),
      401,
      'invalid_client',
      'Unknown client or wrong credentials',
    );
    for (let i = 1; i <= ACCOUNT_RULE.threshold; i += 1)
      assert.equal((await probe(i % 2 ? '/oauth/introspect' : '/oauth/revoke')).status, 401);
    assertEnvelope(await probe('/oauth/revoke'), 429, 'rate_limited', refused);
  });

  test('a rotated secret works at once where the old one is still cached, without counting a failure', async () => {
    const rotating = await makeServiceClient(t.sql, t.secrets.clientSecret);
    const address = '198.51.100.40';
    assert.equal((await token(rotating.client.id, rotating.secret, address, rotating.resource.audience)).status, 200);
    const admin = adminCaller(t, (await makeAdmin(t)).cookie);
    const rotated = await admin('POST', `/admin/clients/${rotating.client.id}/secret`, {});
    assert.equal(rotated.status, 200, JSON.stringify(rotated.json));
    const counters = async () =>
      (await t.sql`select count(*)::int as n from login_throttle where key = ${`client:${rotating.client.id}`}`)[0]?.n;
    const newSecret = rotated.json.client_secret as string;
    assert.equal((await token(rotating.client.id, newSecret, address, rotating.resource.audience)).status, 200);
    assert.equal(await counters(), 0);
    assert.equal((await token(rotating.client.id, rotating.secret, address, rotating.resource.audience)).status, 401);
    assert.equal(await counters(), 1);
  });

  test('a successful authentication writes nothing, and a public client’s stray secret is not counted', async () => {
    const before = await t.sql`select count(*)::int as n from login_throttle`;
    assert.equal((await token(service.client.id, service.secret, '198.51.100.30')).status, 200);
    const { client: spa } = await makeClient(t.sql, t.secrets.clientSecret, { kind: 'browser' });
    for (let i = 0; i <= ACCOUNT_RULE.threshold; i += 1)
      assertEnvelope(
        await post('/oauth/revoke', { client_id: spa.id, client_secret: wrong, token: 't' }, '198.51.100.31'),
        401,
        'invalid_client',
        'A public client does not send client_secret',
      );
    const after = await t.sql`select count(*)::int as n from login_throttle`;
    assert.equal(after[0]?.n, before[0]?.n);
  });
});
