import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ACCOUNT_RULE, IP_RULE } from '../../src/login/local/lockout.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeServiceClient } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope } from '../helpers/oauth-flow.ts';

describe('client authentication is throttled per client and per address', async () => {
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
  const token = (clientId: string, secret: string, address: string) =>
    post(
      '/oauth/token',
      {
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: secret,
        scope: 'read',
        resource: service.resource.audience,
      },
      address,
    );
  const wrong = 'x'.repeat(43);

  test('wrong secrets lock the client from that address, right secret included; other addresses go on', async () => {
    const attacker = '203.0.113.7';
    for (let i = 1; i <= ACCOUNT_RULE.threshold; i += 1)
      assertEnvelope(
        await token(service.client.id, wrong, attacker),
        401,
        'invalid_client',
        'Unknown client or wrong credentials',
      );
    const locked = await token(service.client.id, wrong, attacker);
    assertEnvelope(locked, 429, 'rate_limited', 'Too many failed client authentications; retry later.');
    assert.equal(locked.headers['retry-after'], String(ACCOUNT_RULE.baseLockSeconds));
    // Guessing stops: from the locked address even the right secret is not looked at.
    assertEnvelope(
      await token(service.client.id, service.secret, attacker),
      429,
      'rate_limited',
      'Too many failed client authentications; retry later.',
    );
    // The client itself keeps working from its own address.
    assert.equal((await token(service.client.id, service.secret, '198.51.100.20')).status, 200);
    const [audited] = await t.sql`
      select count(*)::int as n from audit_events
      where event = 'attempt.throttled' and details->>'key' = ${`client:${service.client.id}`}`;
    assert.equal(audited?.n, 1);
    t.clock.advance(ACCOUNT_RULE.baseLockSeconds);
    assert.equal((await token(service.client.id, service.secret, attacker)).status, 200);
  });

  test('unknown client ids count too, at introspection and revocation alike', async () => {
    const prober = '203.0.113.8';
    const probe = (url: string) => post(url, { client_id: 'cli_unknown', client_secret: wrong, token: 't' }, prober);
    for (let i = 1; i <= ACCOUNT_RULE.threshold; i += 1)
      assert.equal((await probe(i % 2 ? '/oauth/introspect' : '/oauth/revoke')).status, 401);
    assertEnvelope(
      await probe('/oauth/revoke'),
      429,
      'rate_limited',
      'Too many failed client authentications; retry later.',
    );
  });

  test('one address trying many clients is locked after the address threshold', async () => {
    const sweeper = '203.0.113.9';
    for (let i = 1; i <= IP_RULE.threshold; i += 1)
      assert.equal((await token(`cli_guess${i}`, wrong, sweeper)).status, 401, `attempt ${i}`);
    assertEnvelope(
      await token('cli_guess_next', wrong, sweeper),
      429,
      'rate_limited',
      'Too many failed client authentications; retry later.',
    );
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
