// The gateway end to end: a real upstream behind the real app, real tokens from the token endpoint (a service
// client's client-credentials token, and a signed-in person's authorization-code token), every refusal with its
// status and envelope, and proof from the upstream's own log that refused requests never reached it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Sub } from '../../src/identity/ids.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { clientCredentialsToken, obtainCode, pkcePair, postForm, userTokens } from '../helpers/oauth-flow.ts';
import { startUpstream } from '../helpers/upstream.ts';
import { databaseWithOrganization, gatewayConfig, policy, startGateway } from './fixtures.ts';

const ISSUER = 'http://localhost:8080';

const json = (r: LightMyRequestResponse) => JSON.parse(r.body) as Record<string, unknown>;

function assertRefusal(r: LightMyRequestResponse, status: number, error: string, description: string) {
  assert.equal(r.statusCode, status, r.body);
  assert.deepEqual(json(r), { error, error_description: description, request_id: r.headers['x-request-id'] });
  assert.equal(r.headers['cache-control'], 'no-store');
}

describe('gateway: requests under gateway.route_prefix', async () => {
  const upstream = await startUpstream();
  const { sql } = await databaseWithOrganization();
  // Created before the app so the policy can name its audience.
  const resource = await makeResource(sql, 'https://api.acme.test/', ['read', 'write']);
  const config = gatewayConfig(upstream.port, [
    policy({
      path_prefix: '/app/p/api',
      methods: ['GET', 'POST'],
      required_scope: 'read',
      required_audience: resource.audience,
    }),
    policy({ path_prefix: '/app/p/api/admin', required_roles: ['admin'] }),
    policy({
      path_prefix: '/app/p/reports',
      required_roles: ['analyst', 'admin'],
      role_match: 'all',
      required_audience: ISSUER,
    }),
    policy({ path_prefix: '/app/p/verified', minimum_assurance: 'ial2' }),
    policy({ path_prefix: '/app/p/mfa', minimum_assurance: 'aal2' }),
    policy({ path_prefix: '/app/p/profile', required_scope: 'profile' }),
  ]);
  const t = await startGateway(config, sql, undefined, true);
  const { client: svc, secret: svcSecret } = await makeClient(sql, t.secrets.clientSecret, {
    kind: 'service',
    audiences: [resource.audience],
    scopes: ['read', 'write'],
  });
  const service = { client: svc, secret: svcSecret as string, resource };
  const serviceToken = async (scope = 'read') => {
    const r = await clientCredentialsToken(t, service, scope);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return r.json.access_token as string;
  };
  const { client: web, secret: webSecret } = await makeClient(sql, t.secrets.clientSecret);
  const person = async (o: { roles?: string[]; assurance?: 'ial1' | 'ial2'; aal?: 'aal1' | 'aal2' } = {}) => {
    const sub = await makeIdentity(sql, { assurance: o.assurance ?? 'ial1' });
    if (o.roles)
      await sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${o.roles})`;
    const { cookie } = await makeSession(t, sub, { aal: o.aal ?? 'aal2' });
    const tokens = await userTokens(t, { client: web, secret: webSecret, cookie });
    return { sub, tokens };
  };
  const get = (url: string, token?: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
  /**
   * GET with the path sent byte for byte over a real socket: inject() parses URLs with WHATWG URL, which resolves
   * `%2e%2e` and `..` itself, so path tricks must bypass it to reach the gateway as an attacker would send them.
   */
  const rawGet = (path: string, token: string) =>
    new Promise<LightMyRequestResponse>((resolve, reject) => {
      const request = http.request(`${t.url}/`, { path, headers: { authorization: `Bearer ${token}` } }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () =>
          resolve({ statusCode: response.statusCode, headers: response.headers, body } as LightMyRequestResponse),
        );
      });
      request.on('error', reject);
      request.end();
    });
  /** Asserts the request was refused before the upstream: nothing new in its log. */
  const notForwarded = async (send: () => Promise<LightMyRequestResponse>) => {
    const before = upstream.received.length;
    const r = await send();
    assert.equal(upstream.received.length, before, 'the upstream received the refused request');
    return r;
  };

  test('a service token with the scope and audience reaches the upstream with identity headers, spoofed ones gone', async () => {
    const token = await serviceToken();
    const r = await get('/app/p/api/items?page=2', token, {
      'x-gatehouse-subject': 'usr_spoofed',
      'x-gatehouse-roles': 'admin',
      'X-Gatehouse-Tenant': 'spoofed',
      'x-forwarded-for': '6.6.6.6',
      'x-forwarded-host': 'evil.test',
      forwarded: 'for=6.6.6.6',
      cookie: 'gatehouse_session=stolen; product=1',
      'keep-alive': 'timeout=100',
      connection: 'keep-alive, x-drop-me',
      'x-drop-me': 'hop-by-hop by Connection',
    });
    assert.equal(r.statusCode, 200, r.body);
    const seen = json(r) as { method: string; url: string; headers: Record<string, string>; rawHeaderNames: string[] };
    assert.equal(seen.url, '/app/p/api/items?page=2');
    assert.equal(seen.headers['x-gatehouse-subject'], svc.id);
    assert.equal(seen.headers['x-gatehouse-client'], svc.id);
    assert.equal(seen.headers['x-gatehouse-scope'], 'read');
    assert.equal(seen.headers['x-gatehouse-roles'], '');
    assert.equal(seen.headers['x-gatehouse-request-id'], r.headers['x-request-id']);
    assert.equal(seen.headers['x-forwarded-for'], '127.0.0.1');
    assert.equal(seen.rawHeaderNames.filter((n) => n === 'x-forwarded-for').length, 1);
    assert.equal(seen.headers.cookie, 'product=1');
    for (const gone of ['x-gatehouse-tenant', 'forwarded', 'x-forwarded-host', 'keep-alive', 'x-drop-me'])
      assert.equal(seen.headers[gone], undefined, `${gone} reached the upstream`);
    // Back from the upstream: its headers, minus a cookie planted under Gatehouse's session cookie name.
    assert.equal(r.headers['x-upstream'], 'yes');
    assert.deepEqual([r.headers['set-cookie']].flat(), ['product=1; Path=/app']);
  });

  test('a signed-in person with both roles reaches a role policy audienced to the issuer', async () => {
    const { sub, tokens } = await person({ roles: ['analyst', 'admin', 'member'] });
    const r = await get('/app/p/reports/q3', tokens.access_token);
    assert.equal(r.statusCode, 200, r.body);
    const seen = json(r) as { headers: Record<string, string> };
    assert.equal(seen.headers['x-gatehouse-subject'], sub);
    assert.equal(seen.headers['x-gatehouse-client'], web.id);
    assert.equal(seen.headers['x-gatehouse-roles'], 'analyst,admin,member');
    assert.equal(seen.headers['x-gatehouse-scope'], tokens.scope);
  });

  test('a missing token is refused with 401 invalid_token and a Bearer challenge', async () => {
    const r = await notForwarded(() => get('/app/p/api/items'));
    assertRefusal(r, 401, 'invalid_token', 'Send the access token as Authorization: Bearer <token>');
    assert.equal(r.headers['www-authenticate'], 'Bearer');
  });

  test('an invalid token is refused with 401 and WWW-Authenticate error="invalid_token"', async () => {
    const r = await notForwarded(() => get('/app/p/api/items', 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln'));
    assertRefusal(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    assert.match(String(r.headers['www-authenticate']), /^Bearer error="invalid_token"/);
  });

  test('a token without the required scope is refused with 403 insufficient_scope', async () => {
    const r = await notForwarded(async () => get('/app/p/api/items', await serviceToken('write')));
    assertRefusal(r, 403, 'insufficient_scope', 'The access token needs the read scope');
    assert.match(String(r.headers['www-authenticate']), /error="insufficient_scope".*scope="read"/);
  });

  test('a token for another audience is refused with 403 wrong_audience', async () => {
    const { tokens } = await person();
    const r = await notForwarded(() => get('/app/p/api/items', tokens.access_token));
    assertRefusal(r, 403, 'wrong_audience', "The access token's audience must include https://api.acme.test/");
  });

  test('a person without the role is refused with 403 insufficient_role', async () => {
    const { tokens } = await person({ roles: ['member'] });
    const r = await notForwarded(() => get('/app/p/api/admin/users', tokens.access_token));
    assertRefusal(r, 403, 'insufficient_role', 'This route requires one of these roles: admin');
  });

  test('role_match all refuses a person holding only one of the roles with insufficient_role', async () => {
    const { tokens } = await person({ roles: ['analyst'] });
    const r = await notForwarded(() => get('/app/p/reports', tokens.access_token));
    assertRefusal(r, 403, 'insufficient_role', 'This route requires all of these roles: analyst, admin');
  });

  test('a person who is no member of the organization is refused with insufficient_role', async () => {
    const { tokens } = await person();
    const r = await notForwarded(() => get('/app/p/api/admin', tokens.access_token));
    assertRefusal(r, 403, 'insufficient_role', 'This route requires one of these roles: admin');
  });

  test('an admin reaches the admin policy, and losing the role refuses the very next request', async () => {
    const { sub, tokens } = await person({ roles: ['admin'] });
    assert.equal((await get('/app/p/api/admin/users', tokens.access_token)).statusCode, 200);
    await sql`update memberships set roles = ${['member']} where identity_id = ${sub as Sub}`;
    const r = await notForwarded(() => get('/app/p/api/admin/users', tokens.access_token));
    assertRefusal(r, 403, 'insufficient_role', 'This route requires one of these roles: admin');
  });

  test('a client-credentials token never satisfies a role policy: insufficient_role', async () => {
    const r = await notForwarded(async () => get('/app/p/api/admin', await serviceToken()));
    assertRefusal(r, 403, 'insufficient_role', 'A client-credentials token cannot satisfy a role requirement');
  });

  test('identity assurance: ial1 is refused and ial2 allowed by a minimum_assurance ial2 policy', async () => {
    const low = await person({ assurance: 'ial1' });
    const r = await notForwarded(() => get('/app/p/verified', low.tokens.access_token));
    assertRefusal(r, 403, 'insufficient_assurance', 'This route requires assurance ial2 or higher');
    const high = await person({ assurance: 'ial2' });
    assert.equal((await get('/app/p/verified', high.tokens.access_token)).statusCode, 200);
  });

  test('sign-in assurance: an aal1 session is refused and an aal2 one allowed by a minimum_assurance aal2 policy', async () => {
    const low = await person({ aal: 'aal1' });
    const r = await notForwarded(() => get('/app/p/mfa', low.tokens.access_token));
    assertRefusal(r, 403, 'insufficient_assurance', 'This route requires assurance aal2 or higher');
    const high = await person({ aal: 'aal2' });
    assert.equal((await get('/app/p/mfa', high.tokens.access_token)).statusCode, 200);
  });

  test('a client-credentials token never satisfies an assurance policy: insufficient_assurance', async () => {
    const r = await notForwarded(async () => get('/app/p/mfa', await serviceToken()));
    assertRefusal(
      r,
      403,
      'insufficient_assurance',
      'A client-credentials token cannot satisfy an assurance requirement',
    );
  });

  test('an undeclared method or path under the protected prefix is refused with 403 no_route_policy', async () => {
    const token = await serviceToken();
    const description = 'No route policy allows this method and path; it is not forwarded.';
    for (const [method, url] of [
      ['DELETE', '/app/p/api/items'],
      ['GET', '/app/p/undeclared'],
      ['GET', '/app/p'],
      // /app/p/api declares POST, but its sub-tree /app/p/api/admin does not: the longer prefix decides.
      ['POST', '/app/p/api/admin/users'],
      ['HEAD', '/app/p/api/items'],
    ] as const) {
      const r = await notForwarded(() => t.app.inject({ method, url, headers: { authorization: `Bearer ${token}` } }));
      assert.equal(r.statusCode, 403, `${method} ${url}`);
      if (method !== 'HEAD') assertRefusal(r, 403, 'no_route_policy', description);
    }
  });

  test('paths outside the protected prefix are proxied without a token and without identity headers', async () => {
    const r = await get('/app/public/page', undefined, { 'x-gatehouse-subject': 'usr_spoofed' });
    assert.equal(r.statusCode, 200, r.body);
    const seen = json(r) as { headers: Record<string, string> };
    assert.equal(seen.headers['x-gatehouse-subject'], undefined);
    assert.equal(seen.headers['x-gatehouse-request-id'], r.headers['x-request-id']);
  });

  test('path tricks are normalised onto the policy that covers the real path', async () => {
    const token = await serviceToken();
    const roleRefusal = 'A client-credentials token cannot satisfy a role requirement';
    for (const url of [
      '/app/p/api/items/../admin',
      '/app/p/api/./admin',
      '/app/p//api//admin/',
      '/app/p/API/Admin',
      '/app/P/api/ADMIN/users',
      '/app/p/api/%61dmin',
      '/app/public/../p/api/admin',
    ]) {
      const r = await notForwarded(() => rawGet(url, token));
      assertRefusal(r, 403, 'insufficient_role', roleRefusal);
    }
    // And onto a lesser policy only when the real path is outside the stricter one; the upstream gets that path.
    const r = await rawGet('/app/p/api/admin/../items', token);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((json(r) as { url: string }).url, '/app/p/api/items');
  });

  test('ambiguous encodings are refused with 400 invalid_request before any check', async () => {
    const token = await serviceToken();
    for (const [url, why] of [
      ['/app/p/api/%2e%2e/admin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
      ['/app/p/api/items/%2E%2E/admin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
      ['/app/p/api%2Fadmin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
      ['/app/p/api/%252e%252e/admin', 'must not percent-encode "/", "\\", ".", "%" or control characters'],
      ['/app/p/api/admin;x=1', 'must not contain ";" (path parameters)'],
    ]) {
      const r = await notForwarded(() => rawGet(url as string, token));
      assert.equal(r.statusCode, 400, url as string);
      assertRefusal(r, 400, 'invalid_request', `The request path ${why}`);
    }
    const leaving = await notForwarded(() => rawGet('/app/p/api/../../../oauth/jwks', token));
    assertRefusal(leaving, 400, 'invalid_request', 'The request path leaves the gateway prefix once normalised');
  });

  test('a token in the query string is refused with 400 invalid_request, never used or forwarded', async () => {
    const token = await serviceToken();
    for (const headers of [{}, { authorization: `Bearer ${token}` }]) {
      const r = await notForwarded(() =>
        t.app.inject({ method: 'GET', url: `/app/p/api/items?access_token=${token}`, headers }),
      );
      assertRefusal(
        r,
        400,
        'invalid_request',
        'Send the access token in the Authorization header, never in the query string',
      );
    }
  });

  test('forged tokens are refused with 401 invalid_token: alg none, HS256 keyed with our public key, foreign jku, an ID token', async () => {
    const { createHmac, generateKeyPairSync, sign } = await import('node:crypto');
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const valid = await serviceToken();
    const [, payload] = valid.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const kid = (JSON.parse(Buffer.from(valid.split('.')[0] as string, 'base64url').toString()) as { kid: string }).kid;
    const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json() as { keys: object[] };
    const { createPublicKey } = await import('node:crypto');
    const publicPem = createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    });
    const none = `${b64({ alg: 'none', typ: 'at+jwt', kid })}.${b64(claims)}.`;
    const hsInput = `${b64({ alg: 'HS256', typ: 'at+jwt', kid })}.${b64(claims)}`;
    const hs256 = `${hsInput}.${createHmac('sha256', publicPem).update(hsInput).digest('base64url')}`;
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jkuInput = `${b64({ alg: 'RS256', typ: 'at+jwt', kid: 'attacker', jku: 'https://evil.test/jwks.json' })}.${b64(claims)}`;
    const jku = `${jkuInput}.${sign('sha256', Buffer.from(jkuInput), foreign.privateKey).toString('base64url')}`;
    const jkuOurKid = `${b64({ alg: 'RS256', typ: 'at+jwt', kid, jku: 'https://evil.test/jwks.json' })}.${b64(claims)}`;
    const jkuSameKid = `${jkuOurKid}.${sign('sha256', Buffer.from(jkuOurKid), foreign.privateKey).toString('base64url')}`;
    const { tokens } = await person();
    // The ID token of a person is audienced to the client, typed JWT: never an access token.
    for (const forged of [none, hs256, jku, jkuSameKid, tokens.id_token]) {
      const r = await notForwarded(() => get('/app/p/profile', forged));
      assertRefusal(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    }
    // The genuine person's access token passes the same policy, so the refusals above are the forgeries'.
    assert.equal((await get('/app/p/profile', tokens.access_token)).statusCode, 200);
  });

  test('request bodies stream to the upstream, and one over gateway.body_limit_bytes gets 413', async () => {
    const token = await serviceToken();
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const r = await t.app.inject({
      method: 'POST',
      url: '/app/p/api/upload',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      payload: big,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((json(r) as { bodyBytes: number }).bodyBytes, big.length);
    const tooBig = await notForwarded(() =>
      t.app.inject({
        method: 'POST',
        url: '/app/p/api/upload',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        payload: Buffer.alloc(config.gateway.body_limit_bytes + 1, 32),
      }),
    );
    assertRefusal(tooBig, 413, 'payload_too_large', 'The request body is too large.');
  });

  test('a response body streams back from the upstream in chunks, without its hop-by-hop headers', async () => {
    const response = await fetch(`${t.url}/app/public/stream`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('transfer-encoding'), 'chunked');
    // The upstream's own Keep-Alive (timeout=5) stays on its connection; the listener announces its own.
    assert.notEqual(response.headers.get('keep-alive'), 'timeout=5');
    assert.equal(await response.text(), 'first,second');
  });

  test('a browser client signs a person in for the API (RFC 8707 resource) and calls it through the gateway', async () => {
    const { client: spa } = await makeClient(sql, t.secrets.clientSecret, {
      kind: 'browser',
      scopes: ['openid', 'read', 'write'],
      audiences: [resource.audience],
    });
    const sub = await makeIdentity(sql);
    await sql`insert into memberships (organization_id, identity_id, roles) values ('acme', ${sub}, ${['admin']})`;
    const { cookie } = await makeSession(t, sub);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, {
      client: spa,
      cookie,
      challenge,
      scope: 'openid read',
      extra: { resource: resource.audience },
    });
    const exchanged = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: spa.id,
      code,
      redirect_uri: spa.redirectUris[0] as string,
      code_verifier: verifier,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.json));
    const token = exchanged.json.access_token as string;
    // The scope-and-audience policy lets the person's resource token through, as the person...
    const allowed = await get('/app/p/api/orders', token);
    assert.equal(allowed.statusCode, 200, allowed.body);
    const seen = json(allowed) as { headers: Record<string, string> };
    assert.equal(seen.headers['x-gatehouse-subject'], sub);
    assert.equal(seen.headers['x-gatehouse-client'], spa.id);
    assert.equal(seen.headers['x-gatehouse-roles'], 'admin');
    // ...and so does the role policy below it; the issuer-audienced policy refuses the resource token.
    assert.equal((await get('/app/p/api/admin/users', token)).statusCode, 200);
    const elsewhere = await notForwarded(() => get('/app/p/reports', token));
    assertRefusal(elsewhere, 403, 'wrong_audience', `The access token's audience must include ${ISSUER}`);
  });
});
