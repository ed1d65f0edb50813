// URIs without a path (src/clients/uri-normalization.ts): registration stores `https://app.example.test/`, clients
// send `https://app.example.test` (window.location.origin, Spring's {baseUrl}, express-openid-connect's idpLogout,
// `resource=https://api.example.test`). Both spellings work at every endpoint; no other spelling does.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, authorizeUrl, pkcePair, postForm } from '../helpers/oauth-flow.ts';

const t = await startTestApp();
const origin = 'https://app.example.test';
const api = await makeResource(t.sql, 'https://api.example.test/', ['orders:read']);
const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
  redirectUris: [`${origin}/`, `${origin}/cb`],
  postLogoutRedirectUris: [`${origin}/`, `${origin}/bye`],
  scopes: ['openid', 'orders:read'],
  audiences: [api.audience],
});
const { client: service, secret: serviceSecret } = await makeClient(t.sql, t.secrets.clientSecret, {
  kind: 'service',
  audiences: [api.audience],
  scopes: ['orders:read'],
});
const { cookie } = await makeSession(t, await makeIdentity(t.sql));

/** Authorizes with `redirectUri` (and `resource`s) as sent, then exchanges the code sending `exchangeUri`. */
async function codeFlow(
  redirectUri: string,
  exchangeUri: string,
  extra: Record<string, string> = {},
  tokenExtra: Record<string, string> = {},
) {
  const { verifier, challenge } = pkcePair();
  const url = authorizeUrl({ client, challenge, redirectUri, scope: 'openid', extra });
  const authorized = await t.app.inject({ method: 'GET', url, headers: { cookie } });
  assert.equal(authorized.statusCode, 302, authorized.body);
  const location = new URL(authorized.headers.location as string);
  const code = location.searchParams.get('code') as string;
  const token = await postForm(t, '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: client.id,
    client_secret: secret as string,
    code,
    redirect_uri: exchangeUri,
    code_verifier: verifier,
    ...tokenExtra,
  });
  return { location, token };
}

/** The stage-one error page: never a redirect to an unregistered URI. */
async function assertRefusedRedirect(redirectUri: string) {
  const { challenge } = pkcePair();
  const r = await t.app.inject({
    method: 'GET',
    url: authorizeUrl({ client, challenge, redirectUri }),
    headers: { cookie },
  });
  assert.equal(r.statusCode, 400, redirectUri);
  assert.equal(r.headers.location, undefined, redirectUri);
  assert.match(r.body, /redirect_uri is not registered for this client/, redirectUri);
  assert.match(r.body, /<code>invalid_request<\/code>/, redirectUri);
}

describe('GET /oauth/authorize and POST /oauth/token with a redirect URI that has no path', () => {
  test('accepts the origin without the slash, redirects to it and exchanges the code sent either way', async () => {
    for (const [sent, exchanged] of [
      [origin, origin],
      [`${origin}/`, `${origin}/`],
      [origin, `${origin}/`],
      [`${origin}/`, origin],
    ] as const) {
      const { location, token } = await codeFlow(sent, exchanged);
      assert.equal(`${location.origin}${location.pathname}`, `${origin}/`);
      assert.equal(token.status, 200, JSON.stringify(token.json));
    }
  });

  test('still refuses an exchange with another redirect URI with invalid_grant', async () => {
    const { token } = await codeFlow(origin, `${origin}/cb`);
    assertEnvelope(token, 400, 'invalid_grant', 'redirect_uri does not match the one in the authorization request');
  });

  test('loosens nothing else: slash, case, query, fragment, port, userinfo and scheme spellings are refused', async () => {
    for (const uri of [
      `${origin}/cb/`, // a trailing slash on a non-empty path
      `${origin}/CB`,
      `${origin}/cb?x=1`,
      `${origin}?x=1`,
      `${origin}/cb#f`,
      `${origin}#f`,
      'https://app.example.test:443/cb', // the default port spelled out
      'https://app.example.test:443',
      'https://user@app.example.test/cb',
      'https://user@app.example.test',
      'https://APP.example.test',
      'HTTPS://app.example.test/cb',
      'http://app.example.test',
      `${origin}//`,
      `${origin}/./cb`,
    ])
      await assertRefusedRedirect(uri);
  });
});

describe('GET /oauth/logout with a post_logout_redirect_uri that has no path', () => {
  const logout = (postLogout: string) =>
    t.app.inject({
      method: 'GET',
      url: `/oauth/logout?${new URLSearchParams({ client_id: client.id, post_logout_redirect_uri: postLogout, state: 's' })}`,
    });

  test('returns to the origin sent without the slash, as to the registered spelling', async () => {
    for (const sent of [origin, `${origin}/`]) {
      const r = await logout(sent);
      assert.equal(r.statusCode, 302, r.body);
      assert.equal(r.headers.location, `${origin}/?state=s`);
    }
  });

  test('loosens nothing else: each other spelling gets the error page and no redirect', async () => {
    for (const uri of [
      `${origin}/bye/`,
      `${origin}/BYE`,
      `${origin}?x=1`,
      'https://app.example.test:443',
      'https://u@app.example.test',
    ]) {
      const r = await logout(uri);
      assert.equal(r.statusCode, 400, uri);
      assert.equal(r.headers.location, undefined, uri);
      assert.match(r.body, /post_logout_redirect_uri is not registered for this client/, uri);
      assert.match(r.body, /<code>invalid_request<\/code>/, uri);
    }
  });
});

describe('resource= naming an API registered as https://api.example.test/', () => {
  test('at the authorization and token endpoints, without the slash, gives a token for the registered audience', async () => {
    for (const sent of ['https://api.example.test', 'https://api.example.test/']) {
      const resource = { resource: sent };
      const { token } = await codeFlow(
        `${origin}/cb`,
        `${origin}/cb`,
        { ...resource, scope: 'openid orders:read' },
        resource,
      );
      assert.equal(token.status, 200, JSON.stringify(token.json));
      const claims = decodeJwt(token.json.access_token as string);
      assert.equal(claims.aud, 'https://api.example.test/');
      assert.equal(claims.scope, 'openid orders:read');
    }
  });

  test('with grant_type=client_credentials, without the slash', async () => {
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'client_credentials',
      client_id: service.id,
      client_secret: serviceSecret as string,
      scope: 'orders:read',
      resource: 'https://api.example.test',
    });
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.equal(decodeJwt(r.json.access_token as string).aud, 'https://api.example.test/');
  });

  test('loosens nothing else: other spellings are invalid_target', async () => {
    for (const resource of ['https://api.example.test:443', 'https://API.example.test', 'https://api.example.test//']) {
      const r = await postForm(t, '/oauth/token', {
        grant_type: 'client_credentials',
        client_id: service.id,
        client_secret: serviceSecret as string,
        scope: 'orders:read',
        resource,
      });
      assertEnvelope(r, 400, 'invalid_target', 'The client is not provisioned for this resource');
    }
    const { challenge } = pkcePair();
    const url = authorizeUrl({
      client,
      challenge,
      redirectUri: `${origin}/cb`,
      scope: 'openid orders:read',
      extra: { resource: 'https://api.example.test:443' },
    });
    const r = await t.app.inject({ method: 'GET', url, headers: { cookie } });
    assert.equal(r.statusCode, 302);
    const location = new URL(r.headers.location as string);
    assert.equal(location.searchParams.get('error'), 'invalid_target');
    assert.equal(location.searchParams.get('code'), null);
  });
});
