import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rotateSigningKey } from '../../src/cli/keys.ts';
import { KEY_RELOAD_SECONDS } from '../../src/oauth/keyring.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, userTokens } from '../helpers/oauth-flow.ts';

describe('GET and POST /oauth/logout', async () => {
  const t = await startTestApp();
  const bye = 'https://app.example.test/bye';
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, { postLogoutRedirectUris: [bye] });
  const sub = await makeIdentity(t.sql);

  /** Tokens issued to `client` in the session behind `cookie`. */
  const tokensFor = (cookie: string) => userTokens(t, { client, secret, cookie, scope: 'openid' });
  const logout = (params: Record<string, string>, cookie: string) =>
    t.app.inject({ method: 'GET', url: `/oauth/logout?${new URLSearchParams(params)}`, headers: { cookie } });
  const revokedAt = async (sessionId: string) =>
    (await t.sql`select revoked_at from sessions where id = ${sessionId}`)[0]?.revoked_at ?? null;

  test('an ID token hint of the current session signs out at once and returns with state', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const { id_token } = await tokensFor(cookie);
    const r = await logout({ id_token_hint: id_token, post_logout_redirect_uri: bye, state: 'st-1' }, cookie);
    assert.equal(r.statusCode, 302);
    assert.equal(r.headers.location, `${bye}?state=st-1`);
    assert.ok(await revokedAt(session.id));
    assert.match(String(r.headers['set-cookie']), /gatehouse_session=;/);
  });

  test('another user’s ID token hint asks for confirmation and leaves the session alone', async () => {
    const { cookie: theirs } = await makeSession(t, await makeIdentity(t.sql));
    const { id_token } = await tokensFor(theirs);
    const { cookie, session } = await makeSession(t, sub);
    const r = await logout({ id_token_hint: id_token, post_logout_redirect_uri: bye, state: 'st-2' }, cookie);
    assert.equal(r.statusCode, 200);
    assert.match(r.body, /Sign out\?/);
    assert.equal(r.headers.location, undefined);
    assert.equal(await revokedAt(session.id), null);
  });

  test('a hint from another session of the same user (other sid) asks for confirmation', async () => {
    const { cookie: earlier } = await makeSession(t, sub);
    const { id_token } = await tokensFor(earlier);
    const { cookie, session } = await makeSession(t, sub);
    const r = await logout({ id_token_hint: id_token }, cookie);
    assert.equal(r.statusCode, 200);
    assert.match(r.body, /Sign out\?/);
    assert.equal(await revokedAt(session.id), null);
  });

  test('refuses an access token as id_token_hint with an error page, signing nobody out', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const { access_token } = await tokensFor(cookie);
    const r = await logout({ id_token_hint: access_token, post_logout_redirect_uri: bye }, cookie);
    assert.equal(r.statusCode, 400);
    assert.equal(r.headers.location, undefined);
    assert.match(r.body, /id_token_hint must be an ID token, not an access token/);
    assert.match(r.body, /<code>invalid_request<\/code>/);
    assert.equal(await revokedAt(session.id), null);
  });

  test('refuses a repeated parameter with an error page, signing nobody out; a ? inside a value is kept', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const { id_token } = await tokensFor(cookie);
    const query = new URLSearchParams({ id_token_hint: id_token, post_logout_redirect_uri: bye, state: 'a' });
    const repeated = await t.app.inject({ method: 'GET', url: `/oauth/logout?${query}&state=b`, headers: { cookie } });
    assert.equal(repeated.statusCode, 400);
    assert.equal(repeated.headers.location, undefined);
    assert.match(repeated.body, /Parameter state is included more than once/);
    assert.equal(await revokedAt(session.id), null);
    // RFC 3986 §3.4 allows a literal ? in a query; it belongs to the value.
    const literal = await t.app.inject({ method: 'GET', url: `/oauth/logout?${query}?x=1`, headers: { cookie } });
    assert.equal(literal.statusCode, 302);
    assert.equal(literal.headers.location, `${bye}?state=a%3Fx%3D1`);
  });

  test('a client_id with a NUL gets the error page naming it, not a database error', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const r = await logout({ client_id: 'cli_\u0000', post_logout_redirect_uri: bye }, cookie);
    assert.equal(r.statusCode, 400);
    assert.match(r.headers['content-type'] as string, /^text\/html/);
    assert.match(r.body, /Parameter client_id contains a control character/);
    assert.equal(await revokedAt(session.id), null);
  });

  test('a control character in the query gets the error page, signing nobody out', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const r = await logout({ client_id: client.id, post_logout_redirect_uri: bye, state: 'a\u0001' }, cookie);
    assert.equal(r.statusCode, 400);
    assert.equal(r.headers.location, undefined);
    assert.match(r.body, /Parameter state contains a control character/);
    assert.equal(await revokedAt(session.id), null);
  });

  test('a post-logout URI a service client kept from before the rule is not honoured', async () => {
    const { client: service } = await makeServiceClient(t.sql, t.secrets.clientSecret);
    await t.sql`update oauth_clients set post_logout_redirect_uris = ${[bye]} where id = ${service.id}`;
    const { cookie } = await makeSession(t, sub);
    const r = await logout({ client_id: service.id, post_logout_redirect_uri: bye }, cookie);
    assert.equal(r.statusCode, 400);
    assert.equal(r.headers.location, undefined);
    assert.match(r.body, /post_logout_redirect_uri is not registered for this client/);
  });

  test('refuses an unregistered post_logout_redirect_uri with an error page', async () => {
    const { cookie } = await makeSession(t, sub);
    const r = await logout({ client_id: client.id, post_logout_redirect_uri: 'https://evil.example.test/' }, cookie);
    assert.equal(r.statusCode, 400);
    assert.equal(r.headers.location, undefined);
    assert.match(r.body, /post_logout_redirect_uri is not registered for this client/);
    // A sign-out, titled as one (not as a sign-in error).
    assert.match(r.body, /<title>This sign-out request cannot continue · /);
    assert.match(r.body, /<h1>This sign-out request cannot continue<\/h1>/);
    assert.doesNotMatch(r.body, /sign-in/);
  });

  test('without an id_token_hint, asks the signed-in user to confirm; the same-origin POST signs out with 303', async () => {
    const { cookie, session: own } = await makeSession(t, sub);
    const page = await logout({ client_id: client.id, post_logout_redirect_uri: bye, state: 's1' }, cookie);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Sign out\?/);
    // form-action also governs the redirect after the POST, so the client's origin must be allowed.
    assert.match(page.headers['content-security-policy'] as string, /form-action 'self' https:\/\/app\.example\.test;/);
    const post = await t.app.inject({
      method: 'POST',
      url: '/oauth/logout',
      headers: { cookie, origin: 'http://localhost:8080', 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ client_id: client.id, post_logout_redirect_uri: bye, state: 's1' }).toString(),
    });
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, `${bye}?state=s1`);
    assert.ok(await revokedAt(own.id));
  });

  /** A relying party's form POST from its own origin; a cross-site POST carries no SameSite=Lax cookie. */
  const rpPost = (body: string, cookie?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/logout',
      headers: {
        origin: 'https://app.example.test',
        'sec-fetch-site': 'cross-site',
        'content-type': 'application/x-www-form-urlencoded',
        ...(cookie ? { cookie } : {}),
      },
      payload: body,
    });

  test('POST from a relying party is sent on to the GET with 303; a hint of this session then signs out', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const { id_token } = await tokensFor(cookie);
    const params = { id_token_hint: id_token, post_logout_redirect_uri: bye, state: 'st-post' };
    // Only the logout parameters travel on into the URL, not whatever else the form held.
    const post = await rpPost(`${new URLSearchParams(params)}&session_note=private`);
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, `/oauth/logout?${new URLSearchParams(params)}`);
    assert.equal(await revokedAt(session.id), null);
    // The browser follows with a top-level GET, which carries the session cookie.
    const get = await t.app.inject({ method: 'GET', url: post.headers.location as string, headers: { cookie } });
    assert.equal(get.statusCode, 302);
    assert.equal(get.headers.location, `${bye}?state=st-post`);
    assert.ok(await revokedAt(session.id));
    // The hint now travels in a URL; the access log keeps only the path (SPEC.md's never-log list).
    assert.ok(t.logs.text.includes('/oauth/logout'));
    assert.ok(!t.logs.text.includes(id_token));
  });

  test('a cross-origin POST never ends a session without confirmation, even when it carries the cookie', async () => {
    const { cookie: theirs } = await makeSession(t, await makeIdentity(t.sql));
    const { id_token: theirHint } = await tokensFor(theirs);
    const { cookie, session } = await makeSession(t, sub);
    const requests: Record<string, string>[] = [
      { client_id: client.id, post_logout_redirect_uri: bye, state: 'x' },
      { id_token_hint: theirHint, post_logout_redirect_uri: bye },
      {},
    ];
    for (const params of requests) {
      const post = await rpPost(new URLSearchParams(params).toString(), cookie);
      assert.equal(post.statusCode, 303);
      assert.equal(post.headers.location, `/oauth/logout?${new URLSearchParams(params)}`);
      assert.equal(post.headers['set-cookie'], undefined);
      const get = await t.app.inject({ method: 'GET', url: post.headers.location as string, headers: { cookie } });
      assert.equal(get.statusCode, 200);
      assert.match(get.body, /Sign out\?/);
    }
    assert.equal(await revokedAt(session.id), null);
  });

  test('POST refuses a repeated parameter with an error page, signing nobody out', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const { id_token } = await tokensFor(cookie);
    const body = `${new URLSearchParams({ id_token_hint: id_token, post_logout_redirect_uri: bye, state: 'a' })}&state=b`;
    for (const origin of ['https://app.example.test', 'http://localhost:8080']) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/oauth/logout',
        headers: { cookie, origin, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body,
      });
      assert.equal(r.statusCode, 400);
      assert.equal(r.headers.location, undefined);
      assert.match(String(r.headers['content-type']), /^text\/html/);
      assert.match(r.body, /Parameter state is included more than once/);
      assert.match(r.body, /<code>invalid_request<\/code>/);
    }
    assert.equal(await revokedAt(session.id), null);
    // Other refusals keep the common JSON envelope.
    const json = await t.app.inject({
      method: 'POST',
      url: '/oauth/logout',
      headers: { cookie, origin: 'https://app.example.test', 'content-type': 'application/json' },
      payload: '{}',
    });
    assertEnvelope(
      { status: json.statusCode, json: JSON.parse(json.body), headers: json.headers },
      415,
      'unsupported_media_type',
      'Send the parameters as application/x-www-form-urlencoded',
    );
  });

  test('refuses an id_token_hint we did not sign', async () => {
    const r = await t.app.inject({ method: 'GET', url: '/oauth/logout?id_token_hint=a.b.c' });
    assert.equal(r.statusCode, 400);
    assert.match(r.body, /id_token_hint is not an ID token we issued/);
  });
});

describe('GET /oauth/logout with an id_token_hint we can no longer verify', async () => {
  const t = await startTestApp();
  const bye = 'https://app.example.test/bye';
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, { postLogoutRedirectUris: [bye] });
  const sub = await makeIdentity(t.sql);
  const revokedAt = async (sessionId: string) =>
    (await t.sql`select revoked_at from sessions where id = ${sessionId}`)[0]?.revoked_at ?? null;
  const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0] as string, 'base64url').toString()).kid;
  const published = async () =>
    (
      JSON.parse((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body) as {
        keys: { kid: string }[];
      }
    ).keys.map((k) => k.kid);

  /** Sessions whose ID tokens were signed by a key that `gatehouse keys rotate` retired and that has left the JWKS. */
  const sessions = [];
  for (let i = 0; i < 3; i++) {
    const { cookie, session } = await makeSession(t, sub);
    const { id_token } = await userTokens(t, { client, secret, cookie, scope: 'openid' });
    sessions.push({ cookie, session, hint: id_token });
  }
  await rotateSigningKey(t.sql, t.secrets, t.config, t.clock.now);
  const { access_token_ttl_seconds, id_token_ttl_seconds } = t.config.tokens;
  t.clock.advance(Math.max(access_token_ttl_seconds, id_token_ttl_seconds) + KEY_RELOAD_SECONDS + 1);
  const [first, second] = sessions as [(typeof sessions)[0], (typeof sessions)[0]];

  const get = (params: Record<string, string>, cookie?: string) =>
    t.app.inject({
      method: 'GET',
      url: `/oauth/logout?${new URLSearchParams(params)}`,
      headers: cookie ? { cookie } : {},
    });
  const confirm = (params: Record<string, string>, cookie: string) =>
    t.app.inject({
      method: 'POST',
      url: '/oauth/logout',
      headers: { cookie, origin: 'http://localhost:8080', 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(params).toString(),
    });

  test('counts as no hint: the user confirms and is signed out, not sent to an unverified URI', async () => {
    assert.equal((await published()).includes(kidOf(first.hint)), false);
    const params = { id_token_hint: first.hint, post_logout_redirect_uri: bye, state: 's' };
    const page = await get(params, first.cookie);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Sign out\?/);
    assert.equal(page.headers.location, undefined);
    assert.match(page.headers['content-security-policy'] as string, /form-action 'self';/);
    assert.equal(await revokedAt(first.session.id), null);
    const post = await confirm(params, first.cookie);
    assert.equal(post.statusCode, 200);
    assert.match(post.body, /You are signed out/);
    assert.equal(post.headers.location, undefined);
    assert.ok(await revokedAt(first.session.id));
    // Without a session there is nothing to confirm, and still nowhere verified to go.
    const signedOut = await get(params);
    assert.equal(signedOut.statusCode, 200);
    assert.match(signedOut.body, /You are signed out/);
    assert.equal(signedOut.headers.location, undefined);
  });

  test('with client_id, the URI registered for that client is honoured after confirmation; another is refused', async () => {
    const params = { id_token_hint: second.hint, client_id: client.id, post_logout_redirect_uri: bye, state: 's2' };
    const page = await get(params, second.cookie);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Sign out\?/);
    assert.match(page.headers['content-security-policy'] as string, /form-action 'self' https:\/\/app\.example\.test;/);
    const refused = await get({ ...params, post_logout_redirect_uri: 'https://evil.example.test/' }, second.cookie);
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /post_logout_redirect_uri is not registered for this client/);
    const post = await confirm(params, second.cookie);
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, `${bye}?state=s2`);
    assert.ok(await revokedAt(second.session.id));
  });

  test('a hint of this session with a broken signature proves nothing: the user is asked first', async () => {
    const { cookie, session } = await makeSession(t, sub);
    const { id_token } = await userTokens(t, { client, secret, cookie, scope: 'openid' });
    const [header, payload] = id_token.split('.');
    const forged = `${header}.${payload}.${Buffer.alloc(256, 7).toString('base64url')}`;
    const r = await get({ id_token_hint: forged, post_logout_redirect_uri: bye }, cookie);
    assert.equal(r.statusCode, 200);
    assert.match(r.body, /Sign out\?/);
    assert.equal(r.headers.location, undefined);
    assert.equal(await revokedAt(session.id), null);
    // The same token intact still signs out at once: the hint was refused for its signature alone.
    const intact = await get({ id_token_hint: id_token, post_logout_redirect_uri: bye }, cookie);
    assert.equal(intact.statusCode, 302);
    assert.ok(await revokedAt(session.id));
  });
});
