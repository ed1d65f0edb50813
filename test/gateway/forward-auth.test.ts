// The forward-auth endpoint on its own (docs/gateway.md "Forward auth"), asked over a real socket as a proxy asks
// it: the same judgement as the built-in gateway (decide()), the identity headers, how long an answer may be kept,
// and who may ask. test/gateway/forward-auth-proxies.test.ts puts real nginx and HAProxy in front.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkSemantics } from '../../src/config/validate.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { policy } from './fixtures.ts';
import { startGatewaySuite } from './suite.ts';

interface Answer {
  status: number;
  headers: Headers;
  body: string;
}

async function ask(url: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const response = await fetch(`${url}/auth/forward`, { method, headers });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

const original = (method: string, uri: string, token?: string) => ({
  'x-original-method': method,
  'x-original-uri': uri,
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

describe('forward auth: the decision endpoint', async () => {
  const suite = await startGatewaySuite({ forward_auth: true, forward_auth_cache_seconds: 7 });
  const { t, svc, serviceToken, upstream } = suite;
  const token = await serviceToken();

  test('allows a request its policy allows, with the identity headers and a max-age within the setting', async () => {
    const r = await ask(t.url, original('GET', '/app/p/api/orders?page=2', token));
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers.get('x-gatehouse-subject'), svc.id);
    assert.equal(r.headers.get('x-gatehouse-client'), svc.id);
    assert.equal(r.headers.get('x-gatehouse-scope'), 'read');
    assert.equal(r.headers.get('x-gatehouse-roles'), '');
    assert.match(r.headers.get('x-gatehouse-request-id') ?? '', /^[A-Za-z0-9_-]{16}$/);
    assert.equal(r.headers.get('x-gatehouse-request-id'), r.headers.get('x-request-id'));
    assert.equal(r.headers.get('cache-control'), 'max-age=7');
    assert.equal(r.headers.get('pragma'), null);
    assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(r.body, '');
  });

  test('the Traefik/Caddy convention is judged alike, whatever method the question itself uses', async () => {
    const r = await ask(
      t.url,
      { 'x-forwarded-method': 'GET', 'x-forwarded-uri': '/app/p/api/orders', authorization: `Bearer ${token}` },
      'POST',
    );
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers.get('x-gatehouse-subject'), svc.id);
  });

  test('refuses as the built-in gateway does: 401 with the challenge, 403 for roles and unknown methods', async () => {
    const missing = await ask(t.url, original('GET', '/app/p/api/orders'));
    assert.equal(missing.status, 401);
    assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal(missing.headers.get('cache-control'), 'no-store');
    assert.equal(JSON.parse(missing.body).error, 'invalid_token');
    const bad = await ask(t.url, original('GET', '/app/p/api/orders', `${token.slice(0, -4)}AAAA`));
    assert.equal(bad.status, 401);
    assert.match(bad.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const roles = await ask(t.url, original('GET', '/app/p/api/admin/users', token));
    assert.equal(roles.status, 403);
    assert.equal(JSON.parse(roles.body).error, 'insufficient_role');
    const method = await ask(t.url, original('DELETE', '/app/p/api/orders/7', token));
    assert.equal(method.status, 403);
    assert.equal(JSON.parse(method.body).error, 'no_route_policy');
    assert.equal(JSON.parse(method.body).request_id, method.headers.get('x-request-id'));
  });

  test('path rules are the gateway’s: dot segments normalised before matching, ambiguous paths refused', async () => {
    const climbed = await ask(t.url, original('GET', '/app/p/api/orders/../admin/x', token));
    assert.equal(climbed.status, 403, 'judged as /app/p/api/admin/x');
    assert.equal(JSON.parse(climbed.body).error, 'insufficient_role');
    for (const uri of ['/app/p/api/%2e%2e/x', '/app/p/API/orders', '/app/p/api;x=1/orders', '/app/../oauth/token']) {
      const r = await ask(t.url, original('GET', uri, token));
      assert.equal(r.status, 400, uri);
      assert.equal(JSON.parse(r.body).error, 'invalid_request', uri);
    }
    const query = await ask(t.url, original('GET', `/app/p/api/orders?access_token=${token}`, token));
    assert.equal(query.status, 400);
  });

  test('an unprotected path is allowed with no identity headers', async () => {
    const r = await ask(t.url, original('GET', '/app/public/page'));
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers.get('x-gatehouse-subject'), null);
    assert.equal(r.headers.get('cache-control'), 'max-age=7');
  });

  test('a question with both conventions, none, half of one, or an unknown method is refused', async () => {
    const both = await ask(t.url, { ...original('GET', '/app/public/x'), 'x-forwarded-uri': '/app/p/api/orders' });
    assert.equal(both.status, 400);
    assert.match(JSON.parse(both.body).error_description, /one convention/);
    assert.equal((await ask(t.url, { authorization: `Bearer ${token}` })).status, 400);
    assert.equal((await ask(t.url, { 'x-original-uri': '/app/public/x' })).status, 400);
    assert.equal((await ask(t.url, original('PROPFIND', '/app/public/x'))).status, 400);
  });

  test('never forwards anything itself', () => {
    assert.equal(upstream.received.length, 0);
  });
});

describe('forward auth: who may ask, and when it is off', async () => {
  test('a caller outside gateway.forward_auth_callers gets 403 untrusted_caller', async () => {
    const { t, serviceToken } = await startGatewaySuite({ forward_auth: true, forward_auth_callers: ['10.0.0.0/8'] });
    const r = await ask(t.url, original('GET', '/app/p/api/orders', await serviceToken()));
    assert.equal(r.status, 403);
    assert.equal(JSON.parse(r.body).error, 'untrusted_caller');
    assert.equal(r.headers.get('x-gatehouse-subject'), null);
  });

  test('with forward_auth_cache_seconds = 0 an allowed answer is no-store', async () => {
    const { t, serviceToken } = await startGatewaySuite({ forward_auth: true, forward_auth_cache_seconds: 0 });
    const r = await ask(t.url, original('GET', '/app/p/api/orders', await serviceToken()));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  test('off (the default), /auth/forward is the service’s 404', async () => {
    const t = await startTestApp({ listen: true });
    const r = await ask(t.url, original('GET', '/app/public/x'));
    assert.equal(r.status, 404);
  });

  test('exchange_audience and a caller that is not an address are refused at startup', () => {
    const { problems } = checkSemantics(
      makeConfig({
        gateway: { forward_auth: true, token_exchange_client_id: 'cli_gateway', forward_auth_callers: ['proxy.local'] },
        auth: {
          enabled: true,
          organization_id: 'acme',
          protected_route_prefix: '/app',
          route_policies: [
            policy({
              path_prefix: '/app/billing',
              required_audience: 'https://app.acme.test/',
              exchange_audience: 'https://billing.acme.test/',
            }),
          ],
        },
      }),
    );
    const keys = problems.map((p) => `${p.key}: ${p.problem}`);
    assert.ok(
      keys.some((k) =>
        /^auth\.route_policies\[0\]\.exchange_audience: is not available with gateway\.forward_auth/.test(k),
      ),
      keys.join('\n'),
    );
    assert.ok(
      keys.some((k) => k.startsWith('gateway.forward_auth_callers[0]: must be an IP address')),
      keys.join('\n'),
    );
  });
});
