// Pushed authorization requests (RFC 9126) with oauth4webapi against a listening Gatehouse: a public client with
// PKCE and a confidential one push, then authorize with only client_id and request_uri; a request_uri is used
// once and within 60 s; a client registered with require_pushed_authorization_requests cannot skip it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const callbackUri = 'http://127.0.0.1:61240/callback';

describe('POST /oauth/par and /oauth/authorize?request_uri', async () => {
  const t = await startListeningIssuer();
  const issuer = new URL(t.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const { client: native } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  const { client: web, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
    redirectUris: [callbackUri],
    requirePushedAuthorizationRequests: true,
  });
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);

  const push = async (client: oauth.Client, auth: oauth.ClientAuth, extra: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const params = new URLSearchParams({
      response_type: 'code',
      redirect_uri: callbackUri,
      scope: 'openid',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'pushed-state',
      ...extra,
    });
    const response = await oauth.pushedAuthorizationRequest(as, client, auth, params, insecure);
    return { verifier, pushed: await oauth.processPushedAuthorizationResponse(as, client, response) };
  };
  const authorizeUrl = (clientId: string, requestUri: string) => {
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({ client_id: clientId, request_uri: requestUri }).toString();
    return url;
  };
  const errorPageOf = async (url: URL) => {
    const response = await fetch(url, { redirect: 'manual', headers: { cookie } });
    assert.equal(response.status, 400);
    return response.text();
  };

  test('discovery lists the endpoint', () => {
    assert.equal(as.pushed_authorization_request_endpoint, `${t.issuer}/oauth/par`);
    assert.equal(as.require_pushed_authorization_requests, false);
  });

  test('a public client pushes with PKCE, authorizes with the request_uri and gets tokens', async () => {
    const client: oauth.Client = { client_id: native.id };
    const { verifier, pushed } = await push(client, oauth.None());
    assert.match(pushed.request_uri, /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]{43}$/);
    assert.equal(pushed.expires_in, 60);
    const callback = await browse(authorizeUrl(native.id, pushed.request_uri), cookie);
    const params = oauth.validateAuthResponse(as, client, callback, 'pushed-state');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callbackUri, verifier, insecure),
    );
    assert.equal(oauth.getValidatedIdTokenClaims(tokens)?.sub, sub);
    // RFC 9126 §4: used once. The second arrival is an error page (no verified redirect URI to send it to).
    const page = await errorPageOf(authorizeUrl(native.id, pushed.request_uri));
    assert.match(page, /<code>invalid_request_uri<\/code>/);
  });

  test('a confidential client that must push authorizes through PAR; a plain request is refused', async () => {
    const client: oauth.Client = { client_id: web.id };
    const { pushed } = await push(client, oauth.ClientSecretPost(secret as string));
    const callback = await browse(authorizeUrl(web.id, pushed.request_uri), cookie);
    assert.ok(callback.searchParams.get('code'));
    assert.equal(callback.searchParams.get('state'), 'pushed-state');

    const plain = new URL(as.authorization_endpoint as string);
    plain.search = new URLSearchParams({
      response_type: 'code',
      client_id: web.id,
      redirect_uri: callbackUri,
      scope: 'openid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const refused = await browse(plain, cookie);
    assert.equal(refused.searchParams.get('error'), 'invalid_request');
    assert.equal(
      refused.searchParams.get('error_description'),
      'This client must push its authorization requests first (PAR, RFC 9126)',
    );
    assert.equal(refused.searchParams.get('code'), null);
  });

  test('a request_uri not used within 60 s is refused with invalid_request_uri', async () => {
    const { pushed } = await push({ client_id: native.id }, oauth.None());
    t.clock.advance(61);
    const page = await errorPageOf(authorizeUrl(native.id, pushed.request_uri));
    assert.match(page, /<code>invalid_request_uri<\/code>/);
  });

  test('another client cannot use a pushed request', async () => {
    const { pushed } = await push({ client_id: native.id }, oauth.None());
    const page = await errorPageOf(authorizeUrl(web.id, pushed.request_uri));
    assert.match(page, /<code>invalid_request_uri<\/code>/);
  });

  test('a push without PKCE or with a request_uri is refused with invalid_request and stores nothing', async () => {
    const before = (await t.sql`select count(*)::int as n from oauth_pushed_requests`)[0]?.n;
    const post = (form: Record<string, string>) =>
      fetch(as.pushed_authorization_request_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: native.id,
          response_type: 'code',
          redirect_uri: callbackUri,
          scope: 'openid',
          ...form,
        }),
      });
    const noPkce = await post({});
    assert.equal(noPkce.status, 400);
    assert.deepEqual(await noPkce.json(), {
      error: 'invalid_request',
      error_description: 'PKCE S256 is required: send code_challenge with code_challenge_method=S256 (RFC 7636)',
      request_id: noPkce.headers.get('x-request-id'),
    });
    const nested = await post({ request_uri: 'urn:ietf:params:oauth:request_uri:x' });
    assert.deepEqual(await nested.json(), {
      error: 'invalid_request',
      error_description: 'request_uri cannot be pushed (RFC 9126 §2.1)',
      request_id: nested.headers.get('x-request-id'),
    });
    assert.equal((await t.sql`select count(*)::int as n from oauth_pushed_requests`)[0]?.n, before);
  });
});
