// The findings of the outside review, each as the attack it describes (DESIGN.md: the gateway forwards exactly the
// path and headers it judged). A client-credentials token may call /app/p/api but not /app/p/api/admin (a role
// policy): every path an upstream could read as the admin route must be refused before the upstream, identity-like
// headers from the client must never arrive, and a request with two Host headers must not be judged at all.
// Requests go byte for byte over a socket (raw-http.ts) to the gateway with the echo upstream behind it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WebSocket } from 'ws';
import { type RawAnswer, rawGet, rawRequest } from './raw-http.ts';
import { startGatewaySuite } from './suite.ts';

interface Echo {
  method: string;
  url: string;
  headers: Record<string, string>;
  rawHeaderNames: string[];
}

describe('gateway: forwards exactly what it judged', async () => {
  const suite = await startGatewaySuite({ strip_request_headers: ['X-Acme-Tenant', 'x-acme-auth-*'] });
  const { t, upstream, svc, serviceToken } = suite;
  const port = Number(new URL(t.url).port);
  const token = await serviceToken();
  const bearer = `Authorization: Bearer ${token}`;

  const assertEnvelope = (r: RawAnswer, status: number, error: string, description: string) => {
    assert.equal(r.status, status, r.body);
    assert.deepEqual(JSON.parse(r.body), {
      error,
      error_description: description,
      request_id: r.headers['x-request-id'],
    });
    assert.equal(r.headers['cache-control'], 'no-store');
  };
  /** Sends, and proves the upstream received nothing. */
  const unforwarded = async (send: () => Promise<RawAnswer>) => {
    const before = upstream.received.length;
    const r = await send();
    assert.equal(upstream.received.length, before, 'the upstream received the refused request');
    return r;
  };
  const echoed = (r: RawAnswer) => {
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as Echo;
  };

  test('the token reaches /app/p/api and is refused on /app/p/api/admin with 403 insufficient_role', async () => {
    assert.equal(echoed(await rawGet(port, '/app/p/api/items', bearer)).url, '/app/p/api/items');
    const r = await unforwarded(() => rawGet(port, '/app/p/api/admin/x', bearer));
    assertEnvelope(r, 403, 'insufficient_role', 'A client-credentials token cannot satisfy a role requirement');
  });

  const edges = 'must not have a segment that ends in ".", starts with "..", or starts or ends with white space';
  const encoded = 'must not percent-encode "/", "\\", ".", "%", ";", "?", "#" or control characters';
  const folded = 'has Unicode characters a server could read as other characters (compatibility or case forms)';
  const caseVariant = 'The request path differs only in letter case from a configured route prefix';
  const ambiguous: [string, string][] = [
    // trailing dots: judged by the parent policy, and `admin.` is `admin` to Windows, IIS and others
    ['/app/p/api/admin.', edges],
    ['/app/p/api/admin./x', edges],
    ['/app/p/api/admin..', edges],
    ['/app/p/api/admin../x', edges],
    ['/app/p/api/admin%20/x', edges],
    ['/app/p/api/..admin', edges],
    // `;` path parameters, dropped by Tomcat and Spring
    ['/app/p/api/admin;x=1/y', 'must not contain ";" (path parameters)'],
    ['/app/p/api/admin%3Bx=1/y', encoded],
    // encoded separators and dot segments, double encoding, encoded query and fragment marks, NUL
    ['/app/p/api%2Fadmin', encoded],
    ['/app/p/api%5Cadmin', encoded],
    ['/app/p/api/x/%2E%2E/admin', encoded],
    ['/app/p/api/x/%252E%252E/admin', encoded],
    ['/app/p/api/x%252Fadmin', encoded],
    ['/app/p/api/admin%3F', encoded],
    ['/app/p/api/admin%23', encoded],
    ['/app/p/api/admin%00', encoded],
    // backslashes, read as "/" by some servers
    ['/app/p/api\\admin', 'must not contain a backslash'],
    ['/app/p/api/x\\..\\admin', 'must not contain a backslash'],
    // malformed and overlong UTF-8 (%C0%AE is an overlong "."): the gateway's path rule refuses these itself (its
    // data path runs ahead of Fastify's router, which would refuse them too)
    ['/app/p/api/x/%C0%AE%C0%AE/admin', 'has a percent-escape that is not UTF-8'],
    ['/app/p/api/admin%zz', 'has a malformed percent-escape'],
    // Unicode that folds into "admin" or "..", and invisible characters
    ['/app/p/api/adm%C4%B1n', folded],
    ['/app/p/api/%EF%BD%81dmin', folded],
    ['/app/p/api/x/%EF%BC%8E%EF%BC%8E/admin', folded],
    ['/app/p/api/ad%E2%80%8Bmin', 'must not contain control or invisible characters'],
    // case variants of a policy prefix, served as the admin route by a case-insensitive upstream
    ['/app/p/api/Admin', caseVariant],
    ['/app/p/API/admin/x', caseVariant],
    ['/app/P/api/admin', caseVariant],
    // a fragment, never part of a request target
    ['/app/p/api/x#/../admin', 'must not contain a fragment ("#")'],
  ];
  test('every path an upstream could read another way is refused with 400 invalid_request and never forwarded', async () => {
    for (const [target, why] of ambiguous) {
      const r = await unforwarded(() => rawGet(port, target, bearer));
      const description = why === caseVariant ? caseVariant : `The request path ${why}`;
      assertEnvelope(r, 400, 'invalid_request', description);
    }
  });

  test('a refusal is logged with its reason and the path, never the query', async () => {
    const r = await rawGet(port, '/app/p/api/admin.?secret=s3cr3t', bearer);
    assertEnvelope(r, 400, 'invalid_request', `The request path ${edges}`);
    const line = t.logs.lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.reqId === r.headers['x-request-id'] && l.msg === 'gateway refused a request');
    assert.deepEqual(
      { path: line?.path, reason: line?.reason, level: line?.level },
      { path: '/app/p/api/admin.', reason: `The request path ${edges}`, level: 40 },
    );
    assert.ok(!t.logs.text.includes('s3cr3t'));
  });

  test('the upstream receives the canonical path the policy judged, with the query as sent', async () => {
    for (const [target, forwarded] of [
      ['/app/p/api/%69tems/./x/../y', '/app/p/api/items/y'],
      ['/app/p//api///items?q=%2F..;x', '/app/p/api/items?q=%2F..;x'],
      ['/app/p/api/caf%c3%a9', '/app/p/api/caf%C3%A9'],
      ['/app/p/api/admin/../items/', '/app/p/api/items/'],
    ])
      assert.equal(echoed(await rawGet(port, target as string, bearer)).url, forwarded, target);
  });

  const spoofed = [
    'X-User-Id: usr_admin',
    'X-User: admin',
    'X_User_Id: usr_admin',
    'X-Real-IP: 10.0.0.1',
    'X-Original-URL: /app/p/api/admin',
    'X-Rewrite-URL: /app/p/api/admin',
    'X-Original-URI: /app/p/api/admin',
    'X-Remote-User: admin',
    'Remote-User: admin',
    'Remote-Groups: admins',
    'X-Auth-Request-User: admin',
    'X-Auth-Request-Email: admin@acme.test',
    'X-Forwarded-User: admin',
    'X-Forwarded-Email: admin@acme.test',
    'X-Forwarded-Preferred-Username: admin',
    'X-Gatehouse-Subject: usr_admin',
    'X-Gatehouse-Roles: admin',
    'X-Client-IP: 10.0.0.1',
    'True-Client-IP: 10.0.0.1',
    'X-HTTP-Method-Override: DELETE',
    'X-Auth-User: admin',
    'X-Auth-Email: admin@acme.test',
    'OIDC_CLAIM_sub: usr_admin',
    'OIDC-Claim-Groups: admins',
    'X-Vouch-User: admin',
    'X-Vouch-IdP-Claims-Groups: admins',
    'X-Envoy-Original-Path: /app/p/api/admin',
    'X-Envoy-Original-URL: /app/p/api/admin',
    'X-Acme-Tenant: other',
    'X-Acme-Auth-Role: admin',
  ];
  // The gateway's own X-Gatehouse-* replace the client's: checked by value below.
  const spoofedNames = spoofed
    .map((line) => (line.split(':')[0] as string).toLowerCase())
    .filter((name) => !name.startsWith('x-gatehouse-'));

  test('identity-like headers from the client never reach the upstream; the gateway sets its own', async () => {
    for (const path of ['/app/p/api/items', '/app/public/page']) {
      const seen = echoed(await rawGet(port, path, bearer, ...spoofed, 'X-Acme-Other: kept'));
      for (const name of spoofedNames) assert.equal(seen.headers[name], undefined, `${name} reached ${path}`);
      // The operator's list names only what it names, and the gateway's own headers arrive once.
      assert.equal(seen.headers['x-acme-other'], 'kept');
      assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
      assert.equal(seen.rawHeaderNames.filter((n) => n === 'x-forwarded-for').length, 1);
      const protectedPath = path.startsWith('/app/p/');
      assert.equal(seen.headers['x-gatehouse-subject'], protectedPath ? svc.id : undefined);
      assert.equal(seen.headers['x-gatehouse-roles'], protectedPath ? '' : undefined);
    }
  });

  test('a WebSocket handshake loses the same headers and is judged by the same path rule', async () => {
    const socket = new WebSocket(`${t.url.replace('http:', 'ws:')}/app/public/feed`, {
      headers: Object.fromEntries(spoofed.map((line) => line.split(': ') as [string, string])),
    });
    await new Promise<void>((resolve, reject) => {
      socket.on('message', () => {
        socket.close();
        resolve();
      });
      socket.on('error', reject);
    });
    const handshake = upstream.received.at(-1);
    assert.equal(handshake?.url, '/app/public/feed');
    for (const name of spoofedNames) assert.equal(handshake?.headers[name], undefined, `${name} reached the upstream`);
    assert.equal(handshake?.headers['x-gatehouse-subject'], undefined);

    const upgrade = [
      'Upgrade: websocket',
      'Connection: Upgrade',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ];
    const r = await unforwarded(() => rawGet(port, '/app/p/api/admin.', bearer, ...upgrade));
    assertEnvelope(r, 400, 'invalid_request', `The request path ${edges}`);
    const twice = await unforwarded(() => rawGet(port, '/app/public/feed', ...upgrade, 'Host: evil.test'));
    assertEnvelope(twice, 400, 'invalid_request', 'The request has more than one Host header');
  });

  test('two Host headers are refused with 400 invalid_request, whichever comes first', async () => {
    for (const hosts of [
      [`Host: 127.0.0.1:${port}`, 'Host: evil.test'],
      ['Host: evil.test', `host: 127.0.0.1:${port}`],
    ]) {
      const r = await unforwarded(() => rawRequest(port, ['GET /app/p/api/items HTTP/1.1', ...hosts, bearer]));
      assertEnvelope(r, 400, 'invalid_request', 'The request has more than one Host header');
    }
  });

  test('two Authorization or DPoP headers are refused with 400 invalid_request, even on an unprotected path', async () => {
    for (const path of ['/app/p/api/items', '/app/public/page']) {
      const r = await unforwarded(() => rawGet(port, path, bearer, 'Authorization: Bearer other'));
      assertEnvelope(r, 400, 'invalid_request', 'The request has more than one Authorization header');
      const proofs = await unforwarded(() => rawGet(port, path, bearer, 'DPoP: a.b.c', 'dpop: d.e.f'));
      assertEnvelope(proofs, 400, 'invalid_request', 'The request has more than one DPoP header');
    }
  });

  test('request smuggling stays shut: Content-Length with Transfer-Encoding, or twice, is refused before the gateway', async () => {
    const host = `Host: 127.0.0.1:${port}`;
    const smuggled = 'GET /app/p/api/admin HTTP/1.1\r\nHost: x\r\n\r\n';
    for (const [head, body] of [
      [['Content-Length: 5', 'Transfer-Encoding: chunked'], `0\r\n\r\n${smuggled}`],
      [['Transfer-Encoding: chunked', 'Content-Length: 5'], `0\r\n\r\n${smuggled}`],
      [['Content-Length: 5', 'Content-Length: 50'], `hello${smuggled}`],
      [['Transfer-Encoding: chunked, identity'], `0\r\n\r\n${smuggled}`],
    ] as [string[], string][]) {
      const r = await unforwarded(() => rawRequest(port, ['POST /app/public/x HTTP/1.1', host, ...head], body));
      // Node's parser answers before any route runs, so there is no envelope to check.
      assert.equal(r.status, 400, head.join(', '));
    }
  });
});
