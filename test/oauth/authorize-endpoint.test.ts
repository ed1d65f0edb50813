import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair } from '../helpers/oauth-flow.ts';

describe('GET /oauth/authorize', async () => {
  const t = await startTestApp();
  const { client } = await makeClient(t.sql, t.secrets.clientSecret);
  const { client: thirdParty } = await makeClient(t.sql, t.secrets.clientSecret, {
    firstParty: false,
    name: 'Gadget <Co>',
  });
  const { client: native } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    redirectUris: ['http://127.0.0.1/cb', 'com.example.app:/oauth/cb'],
  });
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);
  const { challenge } = pkcePair();
  const issuer = t.config.server.issuer;

  const get = (url: string, headers: Record<string, string> = { cookie }) =>
    t.app.inject({ method: 'GET', url, headers });
  const redirectParams = (location: string) => Object.fromEntries(new URL(location).searchParams);

  test('redirects back with code, state and iss', async () => {
    const r = await get(authorizeUrl({ client, challenge }));
    assert.equal(r.statusCode, 302);
    const location = new URL(r.headers.location as string);
    assert.equal(`${location.origin}${location.pathname}`, 'https://app.example.test/callback');
    assert.deepEqual(Object.keys(redirectParams(location.href)).sort(), ['code', 'iss', 'state']);
    assert.equal(location.searchParams.get('state'), 'st-123');
    assert.equal(location.searchParams.get('iss'), issuer);
    assert.equal(r.headers['access-control-allow-origin'], undefined);
  });

  test('a literal ? inside a parameter value belongs to the value (RFC 3986 §3.4)', async () => {
    const url = new URL(authorizeUrl({ client, challenge }), 'http://x');
    url.searchParams.delete('state');
    const r = await get(`${url.pathname}${url.search}&state=st?page=2`);
    assert.equal(r.statusCode, 302, r.body);
    assert.equal(new URL(r.headers.location as string).searchParams.get('state'), 'st?page=2');
  });

  test('an unregistered redirect URI shows an error page and never redirects', async () => {
    const r = await get(authorizeUrl({ client, challenge, redirectUri: 'https://evil.example.test/cb' }));
    assert.equal(r.statusCode, 400);
    assert.equal(r.headers.location, undefined);
    assert.match(r.headers['content-type'] as string, /^text\/html/);
    assert.match(r.body, /redirect_uri is not registered for this client/);
    assert.match(r.body, /<code>invalid_request<\/code>/);
    assert.match(r.body, /<h1>This sign-in request cannot continue<\/h1>/);
    assert.ok(r.body.includes(r.headers['x-request-id'] as string));
  });

  test('an unknown client shows an error page', async () => {
    const r = await get(authorizeUrl({ client: { ...client, id: 'cli_unknown' } as typeof client, challenge }));
    assert.equal(r.statusCode, 400);
    assert.match(r.body, /<code>invalid_client<\/code>/);
  });

  test('a native client loopback redirect URI may use any port (RFC 8252)', async () => {
    const r = await get(
      authorizeUrl({ client: native, challenge, redirectUri: 'http://127.0.0.1:49152/cb', scope: 'openid' }),
    );
    assert.equal(r.statusCode, 302);
    assert.ok((r.headers.location as string).startsWith('http://127.0.0.1:49152/cb?code='));
  });

  test('a native client’s private-use scheme redirect URI (RFC 8252 §7.1) matches exactly', async () => {
    const r = await get(
      authorizeUrl({ client: native, challenge, redirectUri: 'com.example.app:/oauth/cb', scope: 'openid' }),
    );
    assert.equal(r.statusCode, 302);
    assert.ok((r.headers.location as string).startsWith('com.example.app:/oauth/cb?code='));
    const other = await get(
      authorizeUrl({ client: native, challenge, redirectUri: 'com.example.app:/oauth/other', scope: 'openid' }),
    );
    assert.equal(other.statusCode, 400);
    assert.equal(other.headers.location, undefined);
  });

  const redirected: [string, Record<string, string>, string, string][] = [
    [
      'plain PKCE',
      { code_challenge_method: 'plain' },
      'invalid_request',
      'code_challenge_method must be S256, not plain: PKCE S256 is required',
    ],
    [
      'an unknown PKCE method',
      { code_challenge_method: 'S384' },
      'invalid_request',
      'code_challenge_method must be S256, not S384: PKCE S256 is required',
    ],
    [
      'missing PKCE',
      { code_challenge_method: '', code_challenge: '' },
      'invalid_request',
      'PKCE S256 is required: send code_challenge with code_challenge_method=S256 (RFC 7636)',
    ],
    ['a token response type', { response_type: 'token' }, 'unsupported_response_type', 'response_type must be code'],
    [
      'a scope the client may not request',
      { scope: 'openid admin' },
      'invalid_scope',
      'The client may not request scope admin',
    ],
    [
      'a request object',
      { request: 'eyJhbGciOiJub25lIn0.e30.' },
      'request_not_supported',
      'Request objects (the request parameter) are not supported.',
    ],
    [
      'a request object by reference',
      { request_uri: 'https://app.example.test/request.jwt' },
      'request_uri_not_supported',
      'Request objects by reference (request_uri) are not supported.',
    ],
  ];
  for (const [name, extra, error, description] of redirected)
    test(`redirects ${name} back with ${error}, state and iss`, async () => {
      const r = await get(authorizeUrl({ client, challenge, extra }));
      assert.equal(r.statusCode, 302);
      assert.deepEqual(redirectParams(r.headers.location as string), {
        error,
        error_description: description,
        state: 'st-123',
        iss: issuer,
      });
    });

  const omitted: [string, string[], string][] = [
    [
      'PKCE parameters left out entirely',
      ['code_challenge', 'code_challenge_method'],
      'PKCE S256 is required: send code_challenge with code_challenge_method=S256 (RFC 7636)',
    ],
    [
      'S256 without a code_challenge',
      ['code_challenge'],
      'code_challenge must be the 43-character BASE64URL(SHA-256(code_verifier))',
    ],
  ];
  for (const [name, left, description] of omitted)
    test(`redirects ${name} back with invalid_request, state and iss`, async () => {
      const url = new URL(authorizeUrl({ client, challenge }), issuer);
      for (const parameter of left) url.searchParams.delete(parameter);
      assert.ok(!left.some((p) => url.search.includes(`${p}=`)));
      const r = await get(`${url.pathname}${url.search}`);
      assert.equal(r.statusCode, 302);
      assert.deepEqual(redirectParams(r.headers.location as string), {
        error: 'invalid_request',
        error_description: description,
        state: 'st-123',
        iss: issuer,
      });
    });

  test('without a session, sends the browser to the hosted sign-in and back to this request', async () => {
    const url = authorizeUrl({ client, challenge, extra: { login_hint: 'ada@example.test' } });
    const r = await get(url, {});
    assert.equal(r.statusCode, 302);
    const location = new URL(r.headers.location as string, issuer);
    assert.equal(location.pathname, '/signin');
    assert.equal(location.searchParams.get('return_to'), url);
    assert.equal(location.searchParams.get('login_hint'), 'ada@example.test');
  });

  test('an enrollment-only session issues no code: it is sent to enrollment and back to this request', async () => {
    const { cookie: enrolling } = await makeSession(t, sub, { pending: 'enrollment' });
    const url = authorizeUrl({ client, challenge });
    const r = await get(url, { cookie: enrolling });
    assert.equal(r.statusCode, 302);
    assert.equal(r.headers.location, `/enroll?${new URLSearchParams({ return_to: url })}`);
  });

  test('prompt=none without a session redirects login_required', async () => {
    const r = await get(authorizeUrl({ client, challenge, extra: { prompt: 'none' } }), {});
    assert.deepEqual(redirectParams(r.headers.location as string), {
      error: 'login_required',
      error_description: 'The user is not signed in',
      state: 'st-123',
      iss: issuer,
    });
  });

  test('prompt=login forces a fresh sign-in, and a session started after it is accepted on return', async () => {
    const r = await get(authorizeUrl({ client, challenge, extra: { prompt: 'login' } }));
    const signin = new URL(r.headers.location as string, issuer);
    assert.equal(signin.searchParams.get('prompt'), 'login');
    const returnTo = signin.searchParams.get('return_to') as string;
    assert.ok(!returnTo.includes('prompt='));
    const stale = await get(returnTo);
    assert.ok((stale.headers.location as string).startsWith('/signin?'), 'the old session is not fresh enough');
    t.clock.advance(5);
    const { cookie: fresh } = await makeSession(t, sub);
    const back = await get(returnTo, { cookie: fresh });
    assert.ok(new URL(back.headers.location as string).searchParams.get('code'));
    const forged = await get(returnTo.replace(/login_mac=[^&]+/, 'login_mac=forged'));
    assert.ok(
      new URL(forged.headers.location as string).searchParams.get('code'),
      'a forged login_after is ignored, not trusted',
    );
  });

  test('a login_after signed for another state does not satisfy max_age', async () => {
    // The marker of a request whose state is "<client id>:S" once signed the same bytes as login_after
    // "<L>:<client id>" with state "S", and a login_after that is not a number compared as fresh.
    t.clock.advance(2);
    const first = await get(authorizeUrl({ client, challenge, extra: { state: `${client.id}:S`, prompt: 'login' } }));
    const marker = new URL(
      new URL(first.headers.location as string, issuer).searchParams.get('return_to') as string,
      issuer,
    ).searchParams;
    const replayed = await get(
      authorizeUrl({
        client,
        challenge,
        extra: {
          state: 'S',
          max_age: '0',
          login_after: `${marker.get('login_after')}:${client.id}`,
          login_mac: marker.get('login_mac') as string,
        },
      }),
    );
    assert.equal(replayed.statusCode, 302);
    assert.ok((replayed.headers.location as string).startsWith('/signin?'), replayed.headers.location as string);
  });

  test('a login_after is honoured for 15 minutes: a saved return link then asks for a sign-in again', async () => {
    const r = await get(authorizeUrl({ client, challenge, extra: { prompt: 'login' } }));
    const returnTo = new URL(r.headers.location as string, issuer).searchParams.get('return_to') as string;
    t.clock.advance(2);
    const { cookie: fresh } = await makeSession(t, sub);
    t.clock.advance(15 * 60 - 5);
    const inTime = await get(returnTo, { cookie: fresh });
    assert.ok(redirectParams(inTime.headers.location as string).code, 'within the window the marker settles it');
    t.clock.advance(10);
    const late = await get(returnTo, { cookie: fresh });
    const signin = new URL(late.headers.location as string, issuer);
    assert.equal(signin.pathname, '/signin');
    assert.equal(signin.searchParams.get('prompt'), 'login');
  });

  for (const [name, extra] of [
    ['prompt=login', { prompt: 'login' }],
    ['max_age=0', { max_age: '0' }],
  ] as const)
    test(`${name} without a session: one sign-in, and the return trip issues the code`, async () => {
      const r = await get(authorizeUrl({ client, challenge, extra }), {});
      const signin = new URL(r.headers.location as string, issuer);
      assert.equal(signin.pathname, '/signin');
      const returnTo = signin.searchParams.get('return_to') as string;
      t.clock.advance(2);
      const { cookie: fresh } = await makeSession(t, sub);
      // The return crosses a second boundary: max_age=0 alone would send the browser back to sign in.
      t.clock.advance(1);
      const back = await get(returnTo, { cookie: fresh });
      assert.equal(back.statusCode, 302);
      assert.ok(redirectParams(back.headers.location as string).code, back.headers.location as string);
    });

  test('max_age older than the session sends the browser to sign in again', async () => {
    t.clock.advance(120);
    const r = await get(authorizeUrl({ client, challenge, extra: { max_age: '60' } }));
    assert.equal(new URL(r.headers.location as string, issuer).searchParams.get('prompt'), 'login');
  });

  test('max_age=0 completes after one fresh sign-in, even when the return crosses a second boundary', async () => {
    const r = await get(authorizeUrl({ client, challenge, extra: { max_age: '0' } }));
    const signin = new URL(r.headers.location as string, issuer);
    assert.equal(signin.pathname, '/signin');
    assert.equal(signin.searchParams.get('prompt'), 'login');
    const returnTo = signin.searchParams.get('return_to') as string;
    assert.match(returnTo, /max_age=0/);
    t.clock.advance(0.5);
    const { cookie: fresh } = await makeSession(t, sub);
    // One whole second later auth_time is always a second boundary behind "now": max_age alone would loop.
    t.clock.advance(1);
    const back = await get(returnTo, { cookie: fresh });
    assert.equal(back.statusCode, 302);
    assert.ok(redirectParams(back.headers.location as string).code, back.headers.location as string);
  });

  test('a third-party client gets a consent page; allowing it issues a code with a 303 and remembers it', async () => {
    const url = authorizeUrl({ client: thirdParty, challenge, scope: 'openid email' });
    const page = await get(url);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Gadget &#60;Co&#62; wants to access your account/);
    assert.match(page.body, /See your email address/);
    assert.ok(!page.body.includes('<script'));
    const field = (name: string) =>
      (new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&#38;', '&');
    const post = (decision: string, headers: Record<string, string> = { origin: 'http://localhost:8080' }) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/authorize/consent',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision }).toString(),
      });
    const crossSite = await post('allow', { origin: 'https://evil.example.test' });
    assert.equal(crossSite.statusCode, 403);
    assert.equal(JSON.parse(crossSite.body).error, 'csrf_rejected');
    const denied = await post('deny');
    assert.equal(denied.statusCode, 303);
    assert.equal(redirectParams(denied.headers.location as string).error, 'access_denied');
    const allowed = await post('allow');
    assert.equal(allowed.statusCode, 303);
    assert.ok(redirectParams(allowed.headers.location as string).code);
    const remembered = await get(url);
    assert.equal(remembered.statusCode, 302);
    const more = await get(
      authorizeUrl({ client: thirdParty, challenge, scope: 'openid profile', extra: { prompt: 'none' } }),
    );
    assert.equal(redirectParams(more.headers.location as string).error, 'consent_required');
  });

  test('consent completes for a request at the parameter limits, though its encoded copy outgrows 8 KB', async () => {
    const long = '/'.repeat(2048);
    const url = authorizeUrl({
      client: thirdParty,
      challenge,
      scope: 'openid',
      extra: { state: long, nonce: long, prompt: 'consent' },
    });
    const page = await get(url.replaceAll('%2F', '/'));
    assert.equal(page.statusCode, 200, page.body);
    const field = (name: string) =>
      (new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&#38;', '&');
    assert.ok(field('request').length > 8192);
    const allowed = await t.app.inject({
      method: 'POST',
      url: '/oauth/authorize/consent',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://localhost:8080' },
      payload: new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision: 'allow' }).toString(),
    });
    assert.equal(allowed.statusCode, 303, allowed.body);
    assert.ok(redirectParams(allowed.headers.location as string).code);
    assert.equal(redirectParams(allowed.headers.location as string).state, long);
  });

  test('the consent page names a resource scope by its resource and links the UI stylesheet under a strict CSP', async () => {
    const billing = 'https://api.acme-robotics.dev/billing';
    await makeResource(t.sql, billing, ['billing:read', 'billing:write']);
    const { client: partner } = await makeClient(t.sql, t.secrets.clientSecret, {
      firstParty: false,
      name: 'Partner Ledger',
      scopes: ['openid', 'billing:read'],
      audiences: [billing],
    });
    const r = await get(
      authorizeUrl({ client: partner, challenge, scope: 'openid billing:read', extra: { resource: billing } }),
    );
    assert.equal(r.statusCode, 200);
    assert.match(r.body, /<li>Know who you are \(your account identifier\)<\/li>/);
    assert.match(r.body, /<li>Use Test API: billing:read<\/li>/);
    // The form posts to us and is answered with a 303 to the client: form-action governs that redirect too.
    assert.equal(
      r.headers['content-security-policy'],
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self' https://app.example.test; base-uri 'none'; frame-ancestors 'none'",
    );
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.ok(!r.body.includes('<script') && !/\sstyle=/.test(r.body), 'no script, no inline style');
    const stylesheet = /<link rel="stylesheet" href="(\/assets\/[^"]+\.css)">/.exec(r.body)?.[1];
    assert.ok(stylesheet, 'the page links the built UI stylesheet');
    const css = await t.app.inject({ method: 'GET', url: stylesheet });
    assert.equal(css.statusCode, 200);
    assert.match(css.headers['content-type'] as string, /^text\/css/);
  });

  test('the error page allows no form target but our own and cannot be framed', async () => {
    const r = await get(authorizeUrl({ client, challenge, redirectUri: 'https://evil.example.test/cb' }));
    assert.equal(r.statusCode, 400);
    assert.equal(
      r.headers['content-security-policy'],
      "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    assert.match(r.body, /Request ID: <code>[A-Za-z0-9_-]{16}<\/code>/);
  });

  test('a control character: an error page for client_id, a redirected invalid_request after that', async () => {
    const unknown = await get(authorizeUrl({ client, challenge, extra: { client_id: 'cli_\u0000' } }));
    assert.equal(unknown.statusCode, 400);
    assert.equal(unknown.headers.location, undefined);
    assert.match(unknown.body, /<code>invalid_client<\/code>/);
    const nonce = await get(authorizeUrl({ client, challenge, extra: { nonce: 'a\u0000b' } }));
    assert.equal(nonce.statusCode, 302);
    assert.deepEqual(redirectParams(nonce.headers.location as string), {
      error: 'invalid_request',
      error_description: 'Parameter nonce contains a control character',
      state: 'st-123',
      iss: issuer,
    });
  });

  test('a repeated parameter shows an error page', async () => {
    const r = await get(`${authorizeUrl({ client, challenge })}&state=again`);
    assert.equal(r.statusCode, 400);
    assert.match(r.body, /Parameter state is included more than once/);
  });
});
