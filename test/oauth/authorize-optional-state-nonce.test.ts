// `state` and `nonce` are the client's checks, not the server's requirements (OIDC Core §3.1.2.1, RFC 9700 §2.1.1):
// a request without them succeeds when it uses PKCE; each is echoed or bound when sent, and never made up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair, postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

describe('GET /oauth/authorize without state or nonce', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { client: thirdParty } = await makeClient(t.sql, t.secrets.clientSecret, { firstParty: false });
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);
  const { challenge } = pkcePair();
  const issuer = t.config.server.issuer;

  const get = (url: string, headers: Record<string, string> = { cookie }) =>
    t.app.inject({ method: 'GET', url, headers });
  const redirectParams = (location: string) => Object.fromEntries(new URL(location, issuer).searchParams);
  const codeOf = (location: string) => {
    const { code, ...rest } = redirectParams(location);
    assert.ok(code, location);
    return rest;
  };

  test('openid with PKCE and no nonce gets a code; neither its ID token nor a refreshed one has a nonce', async () => {
    const tokens = await userTokens(t, { client, secret, cookie, omit: ['nonce'] });
    const claims = decodeJwt(tokens.id_token);
    assert.equal(claims.sub, sub);
    assert.ok(!('nonce' in claims), JSON.stringify(claims));
    const refreshed = await refreshTokens(t, client, secret, tokens.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    const again = decodeJwt(refreshed.json.id_token as string);
    assert.equal(again.sub, sub);
    assert.ok(!('nonce' in again), JSON.stringify(again));
  });

  test('a nonce that is sent is in the ID token and in the refreshed one', async () => {
    const tokens = await userTokens(t, { client, secret, cookie });
    assert.equal(decodeJwt(tokens.id_token).nonce, 'n-456');
    const refreshed = await refreshTokens(t, client, secret, tokens.refresh_token);
    assert.equal(decodeJwt(refreshed.json.id_token as string).nonce, 'n-456');
  });

  test('an empty nonce counts as none (RFC 6749 §3.1): the ID token has no nonce claim', async () => {
    const pkce = pkcePair();
    const r = await get(authorizeUrl({ client, challenge: pkce.challenge, extra: { nonce: '' } }));
    assert.equal(r.statusCode, 302);
    const { code, ...rest } = redirectParams(r.headers.location as string);
    assert.deepEqual(rest, { state: 'st-123', iss: issuer });
    const exchanged = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code: code as string,
      redirect_uri: client.redirectUris[0] as string,
      code_verifier: pkce.verifier,
    });
    assert.equal(exchanged.status, 200, JSON.stringify(exchanged.json));
    const claims = decodeJwt(exchanged.json.id_token as string);
    assert.equal(claims.sub, sub);
    assert.ok(!('nonce' in claims), JSON.stringify(claims));
  });

  test('without state the code comes back with iss and no state', async () => {
    const r = await get(authorizeUrl({ client, challenge, omit: ['state', 'nonce'] }));
    assert.equal(r.statusCode, 302);
    assert.deepEqual(codeOf(r.headers.location as string), { iss: issuer });
  });

  test('an empty state counts as none: no state is echoed', async () => {
    const r = await get(authorizeUrl({ client, challenge, extra: { state: '' } }));
    assert.equal(r.statusCode, 302);
    assert.deepEqual(codeOf(r.headers.location as string), { iss: issuer });
  });

  test('without state an error redirect carries error, error_description and iss, and no state', async () => {
    const refused = await get(authorizeUrl({ client, challenge, scope: 'openid admin', omit: ['state'] }));
    assert.deepEqual(redirectParams(refused.headers.location as string), {
      error: 'invalid_scope',
      error_description: 'The client may not request scope admin',
      iss: issuer,
    });
    const signedOut = await get(authorizeUrl({ client, challenge, omit: ['state'], extra: { prompt: 'none' } }), {});
    assert.deepEqual(redirectParams(signedOut.headers.location as string), {
      error: 'login_required',
      error_description: 'The user is not signed in',
      iss: issuer,
    });
  });

  test('without state PKCE is still required: a request without a code_challenge is refused', async () => {
    const r = await get(authorizeUrl({ client, challenge, omit: ['state', 'nonce', 'code_challenge'] }));
    assert.deepEqual(redirectParams(r.headers.location as string), {
      error: 'invalid_request',
      error_description: 'code_challenge must be the 43-character BASE64URL(SHA-256(code_verifier))',
      iss: issuer,
    });
  });

  test('prompt=login without state: the sign-in returns to the request, which then issues a code without state', async () => {
    const r = await get(authorizeUrl({ client, challenge, omit: ['state', 'nonce'], extra: { prompt: 'login' } }));
    const returnTo = new URL(r.headers.location as string, issuer).searchParams.get('return_to') as string;
    assert.ok(!returnTo.includes('state='), returnTo);
    t.clock.advance(2);
    const { cookie: fresh } = await makeSession(t, sub);
    const back = await get(returnTo, { cookie: fresh });
    assert.equal(back.statusCode, 302);
    assert.deepEqual(codeOf(back.headers.location as string), { iss: issuer });
  });

  test('a POSTed request without state goes on to the GET and gets a code without state', async () => {
    const url = new URL(authorizeUrl({ client, challenge, omit: ['state', 'nonce'] }), issuer);
    const posted = await t.app.inject({
      method: 'POST',
      url: '/oauth/authorize',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: url.searchParams.toString(),
    });
    assert.equal(posted.statusCode, 303);
    const r = await get(posted.headers.location as string);
    assert.deepEqual(codeOf(r.headers.location as string), { iss: issuer });
  });

  test('the consent form without state or nonce: allow gives a code, deny gives access_denied, neither with state', async () => {
    const url = authorizeUrl({ client: thirdParty, challenge, scope: 'openid', omit: ['state', 'nonce'] });
    const page = await get(`${url}&prompt=consent`);
    assert.equal(page.statusCode, 200, page.body);
    const field = (name: string) =>
      (new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '').replaceAll('&#38;', '&');
    const post = (decision: string) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth/authorize/consent',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: issuer },
        payload: new URLSearchParams({ request: field('request'), csrf: field('csrf'), decision }).toString(),
      });
    const denied = await post('deny');
    assert.equal(denied.statusCode, 303);
    assert.deepEqual(redirectParams(denied.headers.location as string), {
      error: 'access_denied',
      error_description: 'The user denied the request',
      iss: issuer,
    });
    const allowed = await post('allow');
    assert.equal(allowed.statusCode, 303);
    assert.deepEqual(codeOf(allowed.headers.location as string), { iss: issuer });
  });
});
