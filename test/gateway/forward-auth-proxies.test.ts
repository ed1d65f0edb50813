// Forward auth behind real proxies (docs/gateway.md "Forward auth"): Debian's nginx (auth_request, answers cached
// for their max-age) and HAProxy (the documented Lua action), each run with the configuration the document gives,
// in front of the echoing upstream. Allowed requests arrive with Gatehouse's identity headers and none of the
// client's; refused ones never arrive; a revoked token is refused within gateway.forward_auth_cache_seconds.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { scratchDir } from '../helpers/config.ts';
import { type RunningProxy, startForwardAuthHaproxy, startNginx } from '../helpers/forward-auth-proxies.ts';
import { postForm } from '../helpers/oauth-flow.ts';
import type { Received } from '../helpers/upstream.ts';
import { startGatewaySuite } from './suite.ts';

const CACHE_SECONDS = 2;

const proxies = [
  { name: 'nginx', start: startNginx, caches: true },
  { name: 'HAProxy', start: startForwardAuthHaproxy, caches: false },
] as const;

for (const proxy of proxies)
  describe(`forward auth behind ${proxy.name}`, async () => {
    // The built-in gateway is off: everything reaches the upstream through the proxy alone.
    const suite = await startGatewaySuite({
      enabled: false,
      forward_auth: true,
      forward_auth_cache_seconds: CACHE_SECONDS,
    });
    const { t, svc, upstream, serviceToken, person, web, webSecret } = suite;
    const log: string[] = [];
    const running: RunningProxy = await proxy.start(
      { gatehouse: new URL(t.url).host, upstream: `127.0.0.1:${upstream.port}`, dir: scratchDir('gatehouse-fwd-') },
      log,
    );
    after(() => running.stop());
    const token = await serviceToken();

    const send = async (path: string, headers: Record<string, string> = {}) => {
      const before = upstream.received.length;
      const response = await fetch(`${running.url}${path}`, { headers });
      const body = await response.text();
      const forwarded = upstream.received.slice(before) as Received[];
      return { status: response.status, headers: response.headers, body, forwarded };
    };

    test('an allowed request arrives with Gatehouse’s identity headers in place of the client’s', async () => {
      const r = await send('/app/p/api/orders?page=2', {
        authorization: `Bearer ${token}`,
        'x-gatehouse-subject': 'usr_forged',
        'x-gatehouse-roles': 'admin',
        'x-forwarded-for': '203.0.113.9',
      });
      assert.equal(r.status, 200, `${r.body}\n${log.join('')}`);
      assert.equal(r.forwarded.length, 1);
      const [received] = r.forwarded as [Received];
      assert.equal(received.url, '/app/p/api/orders?page=2');
      assert.equal(received.headers['x-gatehouse-subject'], svc.id);
      assert.equal(received.headers['x-gatehouse-client'], svc.id);
      assert.equal(received.headers['x-gatehouse-scope'], 'read');
      // No roles: empty (HAProxy, as the built-in gateway) or absent (nginx drops an empty header), never the client's.
      assert.equal(received.headers['x-gatehouse-roles'] ?? '', '');
      assert.match(String(received.headers['x-gatehouse-request-id']), /^[A-Za-z0-9_-]{16}$/);
      assert.equal(received.rawHeaderNames.filter((n) => n === 'x-gatehouse-subject').length, 1);
      assert.equal(received.headers['x-forwarded-for'], '127.0.0.1');
    });

    test('an unprotected path arrives without any X-Gatehouse-* the client sent', async () => {
      const r = await send('/app/public/page', { 'x-gatehouse-subject': 'usr_forged', 'x-gatehouse-client': 'x' });
      assert.equal(r.status, 200, r.body);
      const [received] = r.forwarded as [Received];
      assert.equal(received.headers['x-gatehouse-subject'], undefined);
      assert.equal(received.headers['x-gatehouse-client'], undefined);
    });

    test('no token: 401 with the Bearer challenge, never forwarded', async () => {
      const r = await send('/app/p/api/orders');
      assert.equal(r.status, 401);
      assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal(r.forwarded.length, 0);
    });

    test('a policy the token does not meet: 403, never forwarded', async () => {
      const roles = await send('/app/p/api/admin/users', { authorization: `Bearer ${token}` });
      assert.equal(roles.status, 403);
      assert.equal(roles.forwarded.length, 0);
      const climbed = await send('/app/p/api/orders/../admin/users', { authorization: `Bearer ${token}` });
      assert.equal(climbed.forwarded.length, 0, 'judged on the normalised path');
    });

    test(`a revoked token is refused within gateway.forward_auth_cache_seconds (${CACHE_SECONDS} s)`, async () => {
      const member = await person({ assurance: 'ial2' });
      const headers = { authorization: `Bearer ${member.tokens.access_token}` };
      // /app/p/verified needs an ial2 person: the token is allowed until its grant is revoked.
      assert.equal((await send('/app/p/verified/x', headers)).status, 200);
      const revoked = await postForm(t, '/oauth/revoke', {
        client_id: web.id,
        client_secret: webSecret,
        token: member.tokens.refresh_token,
      });
      assert.equal(revoked.status, 200);
      const at = performance.now();
      let answer = await send('/app/p/verified/x', headers);
      // Waits on the refusal (each attempt is a real request); the bound is what is asserted.
      while (answer.status === 200 && performance.now() - at < (CACHE_SECONDS + 3) * 1000)
        answer = await send('/app/p/verified/x', headers);
      assert.equal(answer.status, 401);
      assert.equal(answer.forwarded.length, 0);
      const seconds = (performance.now() - at) / 1000;
      assert.ok(seconds <= CACHE_SECONDS + 1, `refused after ${seconds.toFixed(2)} s`);
    });
  });
