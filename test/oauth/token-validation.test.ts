import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import { describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { rotateSigningKey } from '../../src/cli/keys.ts';
import { open } from '../../src/crypto/seal.ts';
import { KEY_RELOAD_SECONDS } from '../../src/oauth/keyring.ts';
import { startTestApp } from '../helpers/app.ts';
import {
  makeAudiencePeer,
  makeClient,
  makeIdentity,
  makeServiceClient,
  makeSession,
} from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, authorizedCode, clientCredentialsToken, postForm, userTokens } from '../helpers/oauth-flow.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';

describe('access token validation: /oauth/userinfo, /oauth/introspect, JWKS and key rotation', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);

  const issued = (scope = 'openid profile email offline_access') => userTokens(t, { client, secret, cookie, scope });
  const userinfo = async (authorization?: string) => {
    const r = await t.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: authorization ? { authorization } : {},
    });
    return { status: r.statusCode, headers: r.headers, json: JSON.parse(r.body) as Record<string, unknown> };
  };
  const introspect = (token: string) =>
    postForm(t, '/oauth/introspect', { client_id: client.id, client_secret: secret as string, token });
  const invalidToken =
    'Bearer error="invalid_token", error_description="The access token is invalid, expired or revoked"';

  test('userinfo without a token: 401 invalid_token with a bare Bearer challenge', async () => {
    const r = await userinfo();
    assertEnvelope(r, 401, 'invalid_token', 'Send the access token as Authorization: Bearer <token>');
    assert.equal(r.headers['www-authenticate'], 'Bearer, DPoP algs="ES256 EdDSA RS256 PS256"');
  });

  test('userinfo with another scheme: the bare challenge; with malformed Bearer credentials: 400 invalid_request', async () => {
    const basic = await userinfo('Basic dXNlcjpwYXNz');
    assertEnvelope(basic, 401, 'invalid_token', 'Send the access token as Authorization: Bearer <token>');
    assert.equal(basic.headers['www-authenticate'], 'Bearer, DPoP algs="ES256 EdDSA RS256 PS256"');
    const description = 'The Authorization header must be Bearer, a space and one access token';
    for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a"b', 'bearer tok=en']) {
      const r = await userinfo(header);
      assertEnvelope(r, 400, 'invalid_request', description);
      assert.equal(r.headers['www-authenticate'], `Bearer error="invalid_request", error_description="${description}"`);
    }
    // RFC 6750 §2.1: "Bearer" 1*SP b64token, so more than one space is still well-formed.
    const { access_token } = await issued();
    assert.equal((await userinfo(`Bearer   ${access_token}`)).status, 200);
  });

  test('userinfo leaves out a blank name instead of sending it empty (OIDC Core §5.3.2)', async () => {
    const blank = await makeIdentity(t.sql, { displayName: '' });
    const { cookie: blankCookie } = await makeSession(t, blank);
    const { access_token } = await userTokens(t, { client, secret, cookie: blankCookie, scope: 'openid profile' });
    const r = await userinfo(`Bearer ${access_token}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { sub: blank });
  });

  test('userinfo by POST answers the same claims as GET', async () => {
    const { access_token } = await issued();
    const r = await t.app.inject({
      method: 'POST',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(r.statusCode, 200);
    assert.deepEqual(JSON.parse(r.body), (await userinfo(`Bearer ${access_token}`)).json);
    assert.equal(JSON.parse(r.body).sub, sub);
  });

  test('introspection refuses HTTP Basic with 401 invalid_client and WWW-Authenticate', async () => {
    const { access_token } = await issued();
    const basic = `Basic ${Buffer.from(`${client.id}:${secret}`).toString('base64')}`;
    const r = await postForm(t, '/oauth/introspect', { token: access_token }, { authorization: basic });
    assertEnvelope(
      r,
      401,
      'invalid_client',
      'HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)',
    );
    assert.equal(
      r.headers['www-authenticate'],
      `Basic realm="gatehouse", error="invalid_client", error_description="HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)"`,
    );
  });

  test('a tampered JWT is refused by userinfo and inactive at introspection', async () => {
    const { access_token } = await issued();
    // Verified first, so the genuine token sits in the verified-token cache, whose key is the signature's end: the
    // forgery below keeps the signature and so meets that entry, which must not vouch for it.
    assert.equal((await introspect(access_token)).json.active, true);
    const [header, payload, signature] = access_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'usr_someone_else' })).toString('base64url')}.${signature}`;
    const r = await userinfo(`Bearer ${forged}`);
    assertEnvelope(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    assert.equal(r.headers['www-authenticate'], invalidToken);
    assert.deepEqual((await introspect(forged)).json, { active: false });
    // The forgery neither replaced nor evicted the genuine token's entry.
    assert.equal((await userinfo(`Bearer ${access_token}`)).status, 200);
    assert.equal((await introspect(access_token)).json.sub, sub);
  });

  test('an expired token is refused', async () => {
    const { access_token } = await issued();
    t.clock.advance(601);
    assertEnvelope(
      await userinfo(`Bearer ${access_token}`),
      401,
      'invalid_token',
      'The access token is invalid, expired or revoked',
    );
    assert.deepEqual((await introspect(access_token)).json, { active: false });
  });

  test('a token without openid gets insufficient_scope; a client-credentials token is not a user token', async () => {
    const { access_token } = await issued('profile');
    const r = await userinfo(`Bearer ${access_token}`);
    assertEnvelope(r, 403, 'insufficient_scope', 'The access token needs the openid scope');
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    const cc = await postForm(t, '/oauth/token', {
      grant_type: 'client_credentials',
      client_id: service.client.id,
      client_secret: service.secret,
      scope: 'read',
      resource: service.resource.audience,
    });
    assertEnvelope(
      await userinfo(`Bearer ${cc.json.access_token}`),
      401,
      'invalid_token',
      'The access token was not issued for a user',
    );
  });

  test('introspection answers RFC 7662 members for an active token', async () => {
    const { access_token } = await issued();
    const r = await introspect(access_token);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.json.active, true);
    assert.equal(r.json.token_type, 'Bearer');
    assert.equal(r.json.iss, t.config.server.issuer);
    assert.equal(r.json.scope, 'openid profile email offline_access');
    assert.equal(r.json.gid, undefined);
  });

  const refused = async (accessToken: string) =>
    assertEnvelope(
      await userinfo(`Bearer ${accessToken}`),
      401,
      'invalid_token',
      'The access token is invalid, expired or revoked',
    );

  test('userinfo refuses an access token whose code was reused (its grant is revoked)', async () => {
    const { exchange } = await authorizedCode(t, { client, secret, cookie });
    const first = await exchange();
    assert.equal((await userinfo(`Bearer ${first.json.access_token}`)).status, 200);
    assert.equal((await exchange()).status, 400);
    // Nodes learn of a revocation by NOTIFY: wait until this one has (docs/decisions.md "Token state cache").
    await tokenStateSynced(t);
    await refused(first.json.access_token as string);
  });

  test('userinfo refuses an access token whose refresh token family was revoked by a replay', async () => {
    const tokens = await issued();
    const refresh = (refreshToken: string) =>
      postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        client_id: client.id,
        client_secret: secret as string,
        refresh_token: refreshToken,
      });
    const rotated = await refresh(tokens.refresh_token as string);
    assert.equal(rotated.status, 200);
    // Past the grace window, presenting the rotated token again revokes the whole family.
    t.clock.advance(t.config.tokens.refresh_token_grace_seconds + 1);
    assert.equal((await refresh(tokens.refresh_token as string)).status, 400);
    await refused(tokens.access_token);
    await refused(rotated.json.access_token as string);
  });

  test('userinfo refuses an access token revoked at /oauth/revoke, and every token of a revoked refresh token', async () => {
    const revoke = (token: string) =>
      postForm(t, '/oauth/revoke', { client_id: client.id, client_secret: secret as string, token });
    const one = await issued();
    assert.equal((await revoke(one.access_token)).status, 200);
    await refused(one.access_token);
    const two = await issued();
    assert.equal((await revoke(two.refresh_token as string)).status, 200);
    // Revoking a refresh token revokes its grant, and with it every access token issued from it.
    await refused(two.access_token);
  });

  test('introspection: a user token whose identity was deleted is inactive (its grant row is gone)', async () => {
    const gone = await makeIdentity(t.sql);
    const session = await makeSession(t, gone);
    const tokens = await userTokens(t, { client, secret, cookie: session.cookie });
    const accessToken = tokens.access_token;
    assert.equal((await introspect(accessToken)).json.active, true);
    await t.sql`delete from identities where id = ${gone}`;
    await tokenStateSynced(t);
    assert.deepEqual((await introspect(accessToken)).json, { active: false });
    assert.deepEqual((await introspect(tokens.refresh_token)).json, { active: false });
  });

  test('introspection: tokens of a deleted client are inactive, user and client-credentials tokens alike', async () => {
    const issuer = t.config.server.issuer;
    // A resource server provisioned for the issuer audience may introspect user tokens of every client.
    const watcher = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'service',
      audiences: [issuer],
      scopes: ['read'],
    });
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    const auditor = await makeAudiencePeer(t.sql, t.secrets.clientSecret, service.resource.audience);
    const cc = await clientCredentialsToken(t, service);
    const other = await makeClient(t.sql, t.secrets.clientSecret);
    const user = await userTokens(t, { client: other.client, secret: other.secret, cookie });
    const asWatcher = (token: string) =>
      postForm(t, '/oauth/introspect', {
        client_id: watcher.client.id,
        client_secret: watcher.secret as string,
        token,
      });
    const asAuditor = (token: string) =>
      postForm(t, '/oauth/introspect', {
        client_id: auditor.client.id,
        client_secret: auditor.secret,
        token,
      });
    assert.equal((await asAuditor(cc.json.access_token as string)).json.active, true);
    assert.equal((await asWatcher(user.access_token)).json.active, true);
    await t.sql`delete from oauth_clients where id in (${service.client.id}, ${other.client.id})`;
    await tokenStateSynced(t);
    assert.deepEqual((await asAuditor(cc.json.access_token as string)).json, { active: false });
    assert.deepEqual((await asWatcher(user.access_token)).json, { active: false });
  });

  test('introspection shows a token only to its own client or a service client provisioned for its audience', async () => {
    const { access_token } = await issued();
    const stranger = await makeClient(t.sql, t.secrets.clientSecret);
    const unprovisioned = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    const as = (c: { client: { id: string }; secret: string | null }) =>
      postForm(t, '/oauth/introspect', {
        client_id: c.client.id,
        client_secret: c.secret as string,
        token: access_token,
      });
    assert.deepEqual((await as(stranger)).json, { active: false }, 'another web client');
    assert.deepEqual((await as(unprovisioned)).json, { active: false }, 'a service client for another audience');
    assert.equal((await introspect(access_token)).json.active, true, 'the client the token was issued to');
  });

  test('introspection of a refresh token answers without token_type (RFC 6749 §7.1 names access token types)', async () => {
    const { refresh_token } = await issued();
    const r = await introspect(refresh_token as string);
    assert.equal(r.json.active, true);
    assert.equal(r.json.client_id, client.id);
    assert.equal(r.json.sub, sub);
    assert.equal('token_type' in r.json, false);
  });

  test('a token signed by a retired key verifies until the key is removed, then never', async () => {
    const before = await issued();
    const jwks = async () =>
      JSON.parse((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body) as {
        keys: { kid: string }[];
      };
    const initial = (await jwks()).keys.map((k) => k.kid);
    assert.equal(initial.length, 1);
    const added = await rotateSigningKey(t.sql, t.secrets, t.config, t.clock.now);
    // The app's keyring caches for 30 s; move past it, as another node would observe.
    t.clock.advance(31);
    const both = (await jwks()).keys.map((k) => k.kid);
    assert.deepEqual(both.sort(), [initial[0], added].sort());
    assert.equal((await userinfo(`Bearer ${before.access_token}`)).status, 200, 'the retired key still verifies');
    const after = await issued();
    const header = JSON.parse(Buffer.from(after.access_token.split('.')[0] as string, 'base64url').toString());
    assert.equal(header.kid, added);
    // Forge a fresh-looking token with the retired initial key: accepted while the key is published...
    const retiredKey = createPrivateKey(t.secrets.oidcSigningKey);
    // A live grant: userinfo checks the token's grant, so the forgery names a real one.
    const { gid } = JSON.parse(Buffer.from(before.access_token.split('.')[1] as string, 'base64url').toString());
    const forge = (lifetimeSeconds = 60) =>
      new SignJWT({ sub, client_id: client.id, scope: 'openid', jti: `j${Math.random()}`, gid })
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: initial[0] as string })
        .setIssuer(t.config.server.issuer)
        .setAudience(t.config.server.issuer)
        .setIssuedAt(Math.floor(t.clock.now().getTime() / 1000))
        .setExpirationTime(Math.floor(t.clock.now().getTime() / 1000) + lifetimeSeconds)
        .sign(retiredKey);
    assert.equal((await userinfo(`Bearer ${await forge()}`)).status, 200);
    // A token outliving its key (which we never sign) is verified once and then served from the verified-token cache.
    const outliving = await forge(3600);
    assert.equal((await userinfo(`Bearer ${outliving}`)).status, 200);
    assert.equal((await userinfo(`Bearer ${outliving}`)).status, 200);
    // ...and refused once it is older than the longest token lifetime, cached or not.
    t.clock.advance(601);
    const r = await userinfo(`Bearer ${await forge()}`);
    assertEnvelope(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    assertEnvelope(
      await userinfo(`Bearer ${outliving}`),
      401,
      'invalid_token',
      'The access token is invalid, expired or revoked',
    );
    assert.deepEqual(
      (await jwks()).keys.map((k) => k.kid),
      [added],
    );
    const [row] = await t.sql`select private_key_sealed from oauth_signing_keys where kid = ${added}`;
    assert.match(
      open(t.secrets.signing, row?.private_key_sealed as string, `oidc-signing-key:${added}`).toString(),
      /BEGIN PRIVATE KEY/,
    );
  });

  test('a key retired elsewhere: its tokens verify until they expire, then it leaves the JWKS', async () => {
    const kidOf = (jwt: string) =>
      (JSON.parse(Buffer.from(jwt.split('.')[0] as string, 'base64url').toString()) as { kid: string }).kid;
    const published = async () =>
      (
        JSON.parse((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).body) as {
          keys: { kid: string }[];
        }
      ).keys.map((k) => k.kid);
    await t.services.keyring.refresh();
    const early = await issued();
    const old = kidOf(early.access_token);
    // The rotation comes from another process (the CLI); this node hears of it by NOTIFY, or at its next reload.
    await rotateSigningKey(t.sql, t.secrets, t.config, t.clock.now);
    // Five seconds before that token expires: still verifies, and the old key is still published.
    t.clock.advance(t.config.tokens.access_token_ttl_seconds - 5);
    assert.equal((await userinfo(`Bearer ${early.access_token}`)).status, 200);
    assert.ok((await published()).includes(old));
    // Past the retirement plus a token lifetime plus a reload interval, no unexpired token can carry the key.
    t.clock.advance(KEY_RELOAD_SECONDS + 6);
    assert.equal((await published()).includes(old), false);
  });

  test('browser clients get CORS on token, userinfo and discovery; never on authorize or introspection', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/oauth/token',
      headers: { origin: 'https://spa.example.test', 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.equal(preflight.headers['access-control-allow-credentials'], undefined);
    const r = await userinfo();
    assert.equal(r.headers['access-control-allow-origin'], '*');
    assert.equal(r.headers['access-control-expose-headers'], 'www-authenticate, x-request-id, dpop-nonce');
    // An error answer of the token endpoint carries them too: the browser client must be able to read it.
    const token = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=unknown',
    });
    assert.equal(token.statusCode, 400);
    assert.equal(token.headers['access-control-allow-origin'], '*');
    assert.equal(token.headers['access-control-expose-headers'], 'www-authenticate, x-request-id, dpop-nonce');
    const discovery = await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    assert.equal(discovery.headers['access-control-allow-origin'], '*');
    const i = await introspect('x');
    assert.equal(i.headers['access-control-allow-origin'], undefined);
  });

  test('discovery and JWKS are public, cacheable documents', async () => {
    const d = await t.app.inject({ method: 'GET', url: '/.well-known/openid-configuration' });
    assert.equal(d.headers['cache-control'], 'public, max-age=3600');
    const doc = JSON.parse(d.body);
    assert.deepEqual(doc.response_types_supported, ['code']);
    assert.deepEqual(doc.id_token_signing_alg_values_supported, ['RS256']);
    assert.deepEqual(doc.grant_types_supported, [
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:token-exchange',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
    const j = await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' });
    assert.equal(j.headers['cache-control'], 'public, max-age=300');
    for (const key of JSON.parse(j.body).keys) {
      assert.deepEqual(Object.keys(key).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
      assert.equal(key.alg, 'RS256');
    }
  });
});
