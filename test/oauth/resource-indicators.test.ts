// RFC 8707 resource indicators for user tokens, end to end against a listening Gatehouse: a browser client signs a
// person in for a product API, and the API validates the token with the jose check docs/integrations.md quotes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { makeAudiencePeer, makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { pkcePair, postForm, refreshTokens } from '../helpers/oauth-flow.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { gatehouseAccessTokens } from '../integrations/snippets/jose-resource-server.ts';

const t = await startListeningIssuer();
const orders = await makeResource(t.sql, 'https://api.acme-robotics.dev/orders', ['orders:read', 'orders:write']);
const billing = await makeResource(t.sql, 'https://api.acme-robotics.dev/billing', ['billing:read']);
const other = await makeResource(t.sql, 'https://api.acme-robotics.dev/other', ['other:read']);
const { client } = await makeClient(t.sql, t.secrets.clientSecret, {
  kind: 'browser',
  redirectUris: ['https://app.example.test/callback'],
  scopes: ['openid', 'profile', 'offline_access', 'orders:read', 'orders:write', 'billing:read'],
  audiences: [orders.audience, billing.audience],
});
const { cookie } = await makeSession(t, await makeIdentity(t.sql));

interface Authorization {
  scope: string;
  resources?: string[];
  extra?: Record<string, string>;
}

/** The authorization request as a browser would send it; returns where Gatehouse redirects the browser. */
async function authorize(a: Authorization) {
  const { verifier, challenge } = pkcePair();
  const url = new URL('/oauth/authorize', t.issuer);
  url.search = new URLSearchParams([
    ['response_type', 'code'],
    ['client_id', client.id],
    ['redirect_uri', client.redirectUris[0] as string],
    ['scope', a.scope],
    ['code_challenge', challenge],
    ['code_challenge_method', 'S256'],
    ['state', 'st'],
    ['nonce', 'n'],
    ...(a.resources ?? []).map((r): [string, string] => ['resource', r]),
    ...Object.entries(a.extra ?? {}),
  ]).toString();
  return { location: await browse(url, cookie), verifier };
}

async function codeFor(a: Authorization) {
  const { location, verifier } = await authorize(a);
  const code = location.searchParams.get('code');
  assert.ok(code, `no code in ${location}`);
  const exchange = (resource?: string) =>
    postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      code,
      redirect_uri: client.redirectUris[0] as string,
      code_verifier: verifier,
      ...(resource ? { resource } : {}),
    });
  return { exchange };
}

const refresh = (token: string, resource?: string) =>
  resource
    ? postForm(t, '/oauth/token', { grant_type: 'refresh_token', client_id: client.id, refresh_token: token, resource })
    : refreshTokens(t, client, null, token);

const errorOf = (location: URL) => ({
  error: location.searchParams.get('error'),
  description: location.searchParams.get('error_description'),
  state: location.searchParams.get('state'),
});

describe('resource indicators (RFC 8707) for user tokens', () => {
  test('a token for one resource carries its aud and only its scopes plus the userinfo ones', async () => {
    const { exchange } = await codeFor({
      scope: 'openid profile offline_access orders:read',
      resources: [orders.audience],
    });
    const r = await exchange();
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const claims = decodeJwt(r.json.access_token as string);
    assert.equal(claims.aud, orders.audience);
    assert.equal(claims.scope, 'openid profile orders:read');
    assert.equal(r.json.scope, 'openid profile orders:read');
    assert.ok(r.json.refresh_token, 'offline_access still issues a refresh token');
    assert.equal(decodeJwt(r.json.id_token as string).aud, client.id, 'the ID token is for the client as ever');

    const userinfo = await fetch(new URL('/oauth/userinfo', t.issuer), {
      headers: { authorization: `Bearer ${r.json.access_token}` },
    });
    assert.equal(userinfo.status, 200, 'the openid scope kept in the token serves userinfo');
  });

  test('two resources: the token request picks one, a refresh moves to the other, without one it is the issuer', async () => {
    const scope = 'openid offline_access orders:read orders:write billing:read';
    const both = [orders.audience, billing.audience];
    const first = await (await codeFor({ scope, resources: both })).exchange(billing.audience);
    assert.equal(first.status, 200, JSON.stringify(first.json));
    assert.deepEqual(
      [decodeJwt(first.json.access_token as string).aud, first.json.scope],
      [billing.audience, 'openid billing:read'],
    );

    const moved = await refresh(first.json.refresh_token as string, orders.audience);
    assert.equal(moved.status, 200, JSON.stringify(moved.json));
    const movedClaims = decodeJwt(moved.json.access_token as string);
    assert.deepEqual([movedClaims.aud, movedClaims.scope], [orders.audience, 'openid orders:read orders:write']);

    const plain = await refresh(moved.json.refresh_token as string);
    assert.equal(plain.status, 200, JSON.stringify(plain.json));
    const plainClaims = decodeJwt(plain.json.access_token as string);
    assert.deepEqual([plainClaims.aud, plainClaims.scope], [t.issuer, 'openid offline_access']);
  });

  test('a refresh naming a resource the authorization did not include is invalid_target and rotates nothing', async () => {
    const { exchange } = await codeFor({ scope: 'openid offline_access orders:read', resources: [orders.audience] });
    const tokens = await exchange();
    const refused = await refresh(tokens.json.refresh_token as string, billing.audience);
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, {
      error: 'invalid_target',
      error_description: 'resource was not part of the authorization this refresh token came from',
      request_id: refused.headers['x-request-id'],
    });
    const after = await refresh(tokens.json.refresh_token as string);
    assert.equal(after.status, 200, 'the refused request did not rotate the token');
    assert.equal(decodeJwt(after.json.access_token as string).aud, orders.audience);
  });

  test('a refresh for a resource with a narrower scope (RFC 6749 §6) gets that resource’s part of it, the grant keeps all', async () => {
    const scope = 'openid offline_access orders:read orders:write';
    const tokens = await (await codeFor({ scope, resources: [orders.audience] })).exchange();
    assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
    const narrowed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.id,
      refresh_token: tokens.json.refresh_token as string,
      resource: orders.audience,
      scope: 'orders:read',
    });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.json));
    const claims = decodeJwt(narrowed.json.access_token as string);
    assert.deepEqual([claims.aud, claims.scope, narrowed.json.scope], [orders.audience, 'orders:read', 'orders:read']);
    assert.equal(narrowed.json.id_token, undefined, 'openid was not asked for');
    const full = await refresh(narrowed.json.refresh_token as string, orders.audience);
    assert.equal(full.status, 200, JSON.stringify(full.json));
    assert.equal(decodeJwt(full.json.access_token as string).scope, 'openid orders:read orders:write');
    assert.equal(typeof full.json.id_token, 'string');
  });

  test('a code exchange naming another resource is invalid_target and leaves the code to retry with', async () => {
    const { exchange } = await codeFor({ scope: 'openid orders:read', resources: [orders.audience] });
    const refused = await exchange(billing.audience);
    assert.deepEqual(
      [refused.status, refused.json.error, refused.json.error_description],
      [400, 'invalid_target', 'resource was not part of the authorization request'],
    );
    const notProvisioned = await exchange(other.audience);
    assert.deepEqual([notProvisioned.status, notProvisioned.json.error], [400, 'invalid_target']);
    const retried = await exchange(orders.audience);
    assert.equal(retried.status, 200, JSON.stringify(retried.json));
  });

  const refusals: [string, Authorization, string, string][] = [
    [
      'a resource the client is not provisioned for',
      { scope: 'openid', resources: [other.audience] },
      'invalid_target',
      'resource is not a registered resource this client may use',
    ],
    [
      'an unregistered resource',
      { scope: 'openid', resources: ['https://api.acme-robotics.dev/unknown'] },
      'invalid_target',
      'resource is not a registered resource this client may use',
    ],
    [
      'a relative resource',
      { scope: 'openid', resources: ['/orders'] },
      'invalid_target',
      'resource must be an absolute URI without a fragment (RFC 8707 §2)',
    ],
    [
      'a resource with a fragment',
      { scope: 'openid', resources: [`${orders.audience}#x`] },
      'invalid_target',
      'resource must be an absolute URI without a fragment (RFC 8707 §2)',
    ],
    [
      'a resource scope without its resource',
      { scope: 'openid orders:read' },
      'invalid_scope',
      'Scope orders:read belongs to a resource: name it with the resource parameter (RFC 8707)',
    ],
    [
      'a scope of a resource that was not requested',
      { scope: 'openid billing:read', resources: [orders.audience] },
      'invalid_scope',
      'Scope billing:read is not defined by the requested resources',
    ],
  ];
  for (const [name, request, error, description] of refusals)
    test(`the authorization endpoint redirects ${error} for ${name}`, async () => {
      const { location } = await authorize(request);
      assert.equal(location.origin + location.pathname, client.redirectUris[0]);
      assert.deepEqual(errorOf(location), { error, description, state: 'st' });
    });

  test('without resource, tokens stay audienced to the issuer with the OpenID scopes', async () => {
    const r = await (await codeFor({ scope: 'openid profile' })).exchange();
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const claims = decodeJwt(r.json.access_token as string);
    assert.deepEqual([claims.aud, claims.scope, r.json.scope], [t.issuer, 'openid profile', 'openid profile']);
  });

  test('introspection answers the resource token to its client and to a service client of that audience only', async () => {
    const r = await (await codeFor({ scope: 'openid orders:read', resources: [orders.audience] })).exchange();
    const token = r.json.access_token as string;
    const peer = await makeAudiencePeer(t.sql, t.secrets.clientSecret, orders.audience, ['orders:read']);
    const stranger = await makeAudiencePeer(t.sql, t.secrets.clientSecret, billing.audience, ['billing:read']);
    const introspect = (by: { client: { id: string }; secret: string }) =>
      postForm(t, '/oauth/introspect', { client_id: by.client.id, client_secret: by.secret, token });
    const seen = await introspect(peer);
    assert.deepEqual(
      [seen.status, seen.json.active, seen.json.aud, seen.json.scope],
      [200, true, orders.audience, 'openid orders:read'],
    );
    assert.deepEqual((await introspect(stranger)).json, { active: false });
  });

  test('oauth4webapi sends resource at both endpoints and gets a token the documented jose check accepts', async () => {
    const issuer = new URL(t.issuer);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
    const rp: oauth.Client = { client_id: client.id };
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: client.redirectUris[0] as string,
      scope: 'openid orders:read',
      resource: orders.audience,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'st',
      nonce: 'n',
    }).toString();
    const params = oauth.validateAuthResponse(as, rp, await browse(url, cookie), 'st');
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      rp,
      oauth.None(),
      params,
      client.redirectUris[0] as string,
      verifier,
      { ...insecure, additionalParameters: { resource: orders.audience } },
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, rp, response, { expectedNonce: 'n' });

    const verify = gatehouseAccessTokens(t.issuer, orders.audience);
    const claims = await verify(`Bearer ${tokens.access_token}`, 'orders:read');
    assert.equal(claims.sub, decodeJwt(tokens.id_token as string).sub);
    await assert.rejects(verify(`Bearer ${tokens.access_token}`, 'orders:write'), /scope orders:write is required/);
    await assert.rejects(verify(`Bearer ${tokens.id_token}`, 'orders:read'), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'typ',
    });
    const plain = await (await codeFor({ scope: 'openid' })).exchange();
    await assert.rejects(verify(`Bearer ${plain.json.access_token}`, 'orders:read'), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'aud',
    });
  });
});
