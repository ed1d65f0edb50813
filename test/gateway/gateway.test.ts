// The gateway end to end: a real upstream behind the real app, real tokens from the token endpoint (a service
// client's client-credentials token, and a signed-in person's authorization-code token), every refusal with its
// status and envelope, and proof from the upstream's own log that refused requests never reached it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Sub } from '../../src/identity/ids.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { obtainCode, pkcePair, postForm } from '../helpers/oauth-flow.ts';
import { send } from '../helpers/over-socket.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';
import { assertRefusal, ISSUER, json, startGatewaySuite } from './suite.ts';

describe('gateway: requests under gateway.route_prefix', async () => {
  const { sql, resource, config, t, svc, web, serviceToken, person, get, notForwarded } = await startGatewaySuite();
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
    assert.equal(r.headers['www-authenticate'], 'Bearer, DPoP algs="ES256 EdDSA RS256 PS256"');
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

  test('an admin reaches the admin policy, and losing the role refuses the next request after its NOTIFY', async () => {
    const { sub, tokens } = await person({ roles: ['admin'] });
    assert.equal((await get('/app/p/api/admin/users', tokens.access_token)).statusCode, 200);
    await sql`update memberships set roles = ${['member']} where identity_id = ${sub as Sub}`;
    // The node's cached roles go when the change's notification arrives (member-changes.test.ts: across nodes).
    await tokenStateSynced(t);
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
      const r = await notForwarded(() => send(t, { method, url, headers: { authorization: `Bearer ${token}` } }));
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

  test('request bodies stream to the upstream, and one over gateway.body_limit_bytes gets 413', async () => {
    const token = await serviceToken();
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    const r = await send(t, {
      method: 'POST',
      url: '/app/p/api/upload',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
      payload: big,
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((json(r) as { bodyBytes: number }).bodyBytes, big.length);
    const tooBig = await notForwarded(() =>
      send(t, {
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
