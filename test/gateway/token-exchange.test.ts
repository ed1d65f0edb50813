// A route with exchange_audience forwards, instead of the caller's token, one exchanged (RFC 8693) for the route's
// API: the echo upstream shows what it received. One exchange serves repeated requests of a caller token; revoking
// the person's grant, the exchanged token or the gateway client's permission takes effect at once; a DPoP-bound
// caller token stays bound.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import { WebSocket } from 'ws';
import { testSecrets } from '../helpers/app.ts';
import { ath, catchUpWithRealTime, dpopKeys, followRealTime, proof } from '../helpers/dpop.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { pkcePair, postForm } from '../helpers/oauth-flow.ts';
import { send } from '../helpers/over-socket.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { databaseWithOrganization, gatewayConfig, policy, startGateway } from './fixtures.ts';
import { assertRefusal, ISSUER, json } from './suite.ts';

interface Seen {
  url: string;
  headers: Record<string, string | undefined>;
}

describe('gateway: routes that forward an exchanged token (exchange_audience)', async () => {
  const upstream = await startUpstream();
  const { sql } = await databaseWithOrganization();
  const api = await makeResource(sql, 'https://app.acme.test/', ['app:read']);
  const billing = await makeResource(sql, 'https://billing.acme.test/', ['billing:read', 'billing:write']);
  const secretKey = testSecrets().clientSecret;
  // The client the gateway exchanges as, registered before the configuration names it. It serves the gateway's own
  // audience and may exchange for billing's.
  const gateway = await makeClient(sql, secretKey, {
    kind: 'service',
    name: 'Gateway',
    audiences: [api.audience],
    scopes: ['app:read', 'billing:read'],
    tokenExchangeAudiences: [billing.audience],
  });
  const config = gatewayConfig(
    upstream.port,
    [
      policy({ path_prefix: '/app/p/billing', required_audience: api.audience, exchange_audience: billing.audience }),
      policy({ path_prefix: '/app/p/plain', required_audience: api.audience }),
    ],
    { token_exchange_client_id: gateway.client.id },
  );
  const t = await startGateway(config, sql, undefined, true);
  followRealTime(t.clock);
  const web = await makeClient(sql, secretKey, {
    kind: 'web',
    scopes: ['openid', 'offline_access', 'app:read', 'billing:read'],
    audiences: [api.audience, billing.audience],
  });

  /** A person signs in to the web app for the gateway's API (and billing); returns tokens for the gateway's API. */
  async function signIn(scope = 'openid offline_access app:read billing:read', headers: Record<string, string> = {}) {
    const sub = await makeIdentity(sql);
    const { cookie } = await makeSession(t, sub);
    const { verifier, challenge } = pkcePair();
    const query = new URLSearchParams([
      ['response_type', 'code'],
      ['client_id', web.client.id],
      ['redirect_uri', web.client.redirectUris[0] as string],
      ['scope', scope],
      ['code_challenge', challenge],
      ['code_challenge_method', 'S256'],
      ['resource', api.audience],
      ['resource', billing.audience],
    ]);
    const authorized = await send(t, { method: 'GET', url: `/oauth/authorize?${query}`, headers: { cookie } });
    const code = new URL(authorized.headers.location as string).searchParams.get('code') as string;
    const r = await postForm(
      t,
      '/oauth/token',
      {
        grant_type: 'authorization_code',
        client_id: web.client.id,
        client_secret: web.secret as string,
        code,
        redirect_uri: web.client.redirectUris[0] as string,
        code_verifier: verifier,
        resource: api.audience,
      },
      headers,
    );
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return { sub, ...(r.json as { access_token: string; refresh_token: string }) };
  }

  const get = (path: string, authorization: string, headers: Record<string, string> = {}) =>
    send(t, { method: 'GET', url: path, headers: { authorization, ...headers } });
  const seen = (r: { body: string }) => json(r as never) as unknown as Seen;
  const forwardedToken = (r: { body: string }) => {
    const authorization = seen(r).headers.authorization ?? '';
    return authorization.slice(authorization.indexOf(' ') + 1);
  };
  const exchanges = async () =>
    (await sql<{ n: number }[]>`select count(*)::int as n from audit_events where event = 'oauth.token_exchanged'`)[0]
      ?.n as number;

  test('the upstream receives a token for the route’s API, for the same person, naming the gateway as actor', async () => {
    const person = await signIn();
    const r = await get('/app/p/billing/invoices', `Bearer ${person.access_token}`);
    assert.equal(r.statusCode, 200, r.body);
    const received = seen(r);
    assert.equal(received.url, '/app/p/billing/invoices');
    assert.match(received.headers.authorization ?? '', /^Bearer /);
    const token = forwardedToken(r);
    assert.notEqual(token, person.access_token, 'the caller’s token never reaches the upstream');
    assert.ok(!JSON.stringify(received.headers).includes(person.access_token));
    const claims = decodeJwt(token);
    assert.equal(claims.aud, billing.audience);
    assert.equal(claims.sub, person.sub);
    assert.equal(claims.client_id, gateway.client.id);
    assert.equal(claims.scope, 'billing:read');
    assert.deepEqual(claims.act, { sub: gateway.client.id });
    assert.ok((claims.exp as number) <= (decodeJwt(person.access_token).exp as number));
    // The identity headers still describe the caller.
    assert.equal(received.headers['x-gatehouse-subject'], person.sub);
    assert.equal(received.headers['x-gatehouse-client'], web.client.id);
    // The billing API can check the token it got: introspection shows it active to a client serving billing.
    const billingApi = await makeClient(sql, secretKey, {
      kind: 'service',
      audiences: [billing.audience],
      scopes: ['billing:read'],
    });
    const introspected = await postForm(t, '/oauth/introspect', {
      client_id: billingApi.client.id,
      client_secret: billingApi.secret as string,
      token,
    });
    assert.equal(introspected.json.active, true);
    assert.deepEqual(introspected.json.act, { sub: gateway.client.id });
  });

  test('repeated requests with one caller token reuse one exchanged token; a route without the option forwards the caller’s', async () => {
    const person = await signIn();
    const before = await exchanges();
    const first = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    const second = await get('/app/p/billing/b', `Bearer ${person.access_token}`);
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(second.statusCode, 200, second.body);
    assert.equal(forwardedToken(second), forwardedToken(first));
    assert.equal(await exchanges(), before + 1, 'one exchange, one audit record');
    const scraped = await send(t, {
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${t.secrets.metrics.toString('base64url')}` },
    });
    assert.match(scraped.body, /gatehouse_gateway_exchanged_tokens_total\{source="cache"\} [1-9]/);
    assert.match(scraped.body, /gatehouse_token_exchanges_total\{via="gateway",outcome="issued"\} [1-9]/);
    const plain = await get('/app/p/plain/x', `Bearer ${person.access_token}`);
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal(forwardedToken(plain), person.access_token);
    // Another caller token of the same person gets its own exchanged token.
    const other = await signIn();
    const third = await get('/app/p/billing/a', `Bearer ${other.access_token}`);
    assert.notEqual(forwardedToken(third), forwardedToken(first));
  });

  test('revoking the person’s grant refuses the next request before the upstream, and ends the exchanged token', async () => {
    const person = await signIn();
    const first = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    assert.equal(first.statusCode, 200, first.body);
    const exchanged = forwardedToken(first);
    const revoked = await postForm(t, '/oauth/revoke', {
      client_id: web.client.id,
      client_secret: web.secret as string,
      token: person.refresh_token,
    });
    assert.equal(revoked.status, 200);
    await tokenStateSynced(t);
    const before = upstream.received.length;
    const refused = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    assertRefusal(refused, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    assert.equal(upstream.received.length, before, 'the refused request never reached the upstream');
    const introspected = await postForm(t, '/oauth/introspect', {
      client_id: gateway.client.id,
      client_secret: gateway.secret as string,
      token: exchanged,
    });
    assert.deepEqual(introspected.json, { active: false });
  });

  test('a revoked exchanged token is never forwarded again: the next request gets a new one', async () => {
    const person = await signIn();
    const first = forwardedToken(await get('/app/p/billing/a', `Bearer ${person.access_token}`));
    const revoked = await postForm(t, '/oauth/revoke', {
      client_id: gateway.client.id,
      client_secret: gateway.secret as string,
      token: first,
    });
    assert.equal(revoked.status, 200);
    await tokenStateSynced(t);
    const next = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    assert.equal(next.statusCode, 200, next.body);
    assert.notEqual(forwardedToken(next), first);
  });

  test('a person whose grant holds no billing scope is refused with 403 token_exchange_refused, audited', async () => {
    const person = await signIn('openid app:read');
    const before = upstream.received.length;
    const refused = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    assertRefusal(
      refused,
      403,
      'token_exchange_refused',
      'The gateway could not exchange the access token for one this route forwards (token exchange refused; an administrator can see why).',
    );
    assert.equal(upstream.received.length, before);
    const [record] = await sql<{ actor: string; details: Record<string, unknown> }[]>`
      select actor, details from audit_events where event = 'oauth.token_exchange_refused' order by id desc limit 1`;
    assert.deepEqual(record, {
      actor: gateway.client.id,
      details: { via: 'gateway', error: 'invalid_scope', audience: billing.audience },
    });
    assert.match(t.logs.text, /gateway token exchange refused/);
  });

  test('taking the audience away from the gateway’s client ends forwarding at once, kept tokens included', async () => {
    const person = await signIn();
    const ok = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    assert.equal(ok.statusCode, 200, ok.body);
    await sql`update oauth_clients set token_exchange_audiences = '{}' where id = ${gateway.client.id}`;
    // The client directory keeps a client 5 seconds (src/oauth/client-directory.ts): move past it.
    t.clock.advance(6);
    try {
      const before = upstream.received.length;
      const refused = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(json(refused).error, 'token_exchange_refused');
      assert.equal(upstream.received.length, before);
    } finally {
      await sql`update oauth_clients set token_exchange_audiences = ${[billing.audience]} where id = ${gateway.client.id}`;
      t.clock.advance(6);
    }
    const again = await get('/app/p/billing/a', `Bearer ${person.access_token}`);
    assert.equal(again.statusCode, 200, again.body);
  });

  test('a WebSocket handshake on such a route reaches the upstream with the exchanged token too', async () => {
    const person = await signIn();
    const socket = new WebSocket(`${t.url.replace('http:', 'ws:')}/app/p/billing/feed`, {
      headers: { authorization: `Bearer ${person.access_token}` },
    });
    const greeting = await new Promise<string>((resolve, reject) => {
      socket.once('message', (data) => resolve(data.toString()));
      socket.once('error', reject);
    });
    socket.close();
    assert.equal(greeting, `hello ${person.sub}`);
    const handshake = upstream.received.at(-1);
    const authorization = String(handshake?.headers.authorization);
    assert.match(authorization, /^Bearer /);
    const claims = decodeJwt(authorization.slice('Bearer '.length));
    assert.deepEqual([claims.aud, claims.sub, claims.act], [billing.audience, person.sub, { sub: gateway.client.id }]);
  });

  test('a DPoP-bound caller token is forwarded as an exchanged token bound to the same key, without the proof', async () => {
    catchUpWithRealTime(t.clock);
    const keys = await dpopKeys();
    const person = await signIn(undefined, { dpop: await proof(keys, { htm: 'POST', htu: `${ISSUER}/oauth/token` }) });
    const path = '/app/p/billing/a';
    const r = await get(path, `DPoP ${person.access_token}`, {
      dpop: await proof(keys, { htm: 'GET', htu: `${ISSUER}${path}`, ath: ath(person.access_token) }),
    });
    assert.equal(r.statusCode, 200, r.body);
    const received = seen(r);
    assert.match(received.headers.authorization ?? '', /^DPoP /);
    assert.equal(received.headers.dpop, undefined, 'the caller’s proof names the caller’s token: not forwarded');
    assert.deepEqual(decodeJwt(forwardedToken(r)).cnf, {
      jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)),
    });
  });
});
