// Full flows with openid-client (v6) as a real relying party against a listening Gatehouse.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import * as oidc from 'openid-client';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';
import { finishSignIn, gatehouseConfig, startSignIn } from '../integrations/snippets/openid-client.ts';

describe('openid-client against Gatehouse', async () => {
  const t = await startListeningIssuer();
  const redirectUri = 'https://app.example.test/callback';
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
    redirectUris: [redirectUri],
    postLogoutRedirectUris: ['https://app.example.test/bye'],
  });
  const sub = await makeIdentity(t.sql, { displayName: 'Ada Lovelace', email: 'ada@example.test' });
  const { cookie, session: signedIn } = await makeSession(t, sub);
  const insecure = { execute: [oidc.allowInsecureRequests] };
  const config = await oidc.discovery(
    new URL(t.issuer),
    client.id,
    {},
    oidc.ClientSecretPost(secret as string),
    insecure,
  );
  // Verify ID token signatures against the JWKS, not only the TLS channel.
  oidc.enableNonRepudiationChecks(config);

  const signIn = async (scope = 'openid profile email offline_access', session = cookie) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const callback = await browse(url, session);
    return oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
      idTokenExpected: true,
    });
  };

  // OIDC Core §3.1.3.6, computed here rather than with the server's helper: left half of SHA-256, base64url.
  const independentAtHash = (accessToken: string) =>
    createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');

  test('discovery names the endpoints, scopes, claims and the supported methods', () => {
    const m = config.serverMetadata();
    assert.equal(m.issuer, t.issuer);
    assert.equal(m.authorization_endpoint, `${t.issuer}/oauth/authorize`);
    assert.equal(m.token_endpoint, `${t.issuer}/oauth/token`);
    assert.equal(m.userinfo_endpoint, `${t.issuer}/oauth/userinfo`);
    assert.equal(m.introspection_endpoint, `${t.issuer}/oauth/introspect`);
    assert.equal(m.revocation_endpoint, `${t.issuer}/oauth/revoke`);
    assert.equal(m.end_session_endpoint, `${t.issuer}/oauth/logout`);
    assert.equal(m.jwks_uri, `${t.issuer}/.well-known/jwks.json`);
    assert.deepEqual(m.scopes_supported, ['openid', 'profile', 'email', 'offline_access']);
    assert.deepEqual([...(m.claims_supported as string[])].sort(), [
      'acr',
      'amr',
      'at_hash',
      'aud',
      'auth_time',
      'azp',
      'email',
      'email_verified',
      'exp',
      'iat',
      'iss',
      'name',
      'nonce',
      'sid',
      'sub',
    ]);
    assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(m.token_endpoint_auth_methods_supported, ['none', 'client_secret_post', 'private_key_jwt']);
    assert.equal(m.authorization_response_iss_parameter_supported, true);
  });

  test('authorization code + PKCE + state + nonce; the ID token validates (signature, at_hash, azp)', async () => {
    const tokens = await signIn();
    const claims = tokens.claims();
    assert.ok(claims);
    assert.equal(claims.sub, sub);
    assert.equal(claims.azp, client.id);
    assert.equal(claims.at_hash, independentAtHash(tokens.access_token));
    assert.equal(claims.auth_time, Math.floor(signedIn.authTime.getTime() / 1000));
    assert.equal(claims.acr, 'aal2');
    assert.deepEqual(claims.amr, ['pwd', 'otp']);
    assert.match(String(claims.sid), /^ses_/);
    assert.ok(tokens.refresh_token);
  });

  test('the library’s recommended flow (PKCE, no state, no nonce) signs in; neither ID token has a nonce', async () => {
    // docs/integrations.md: the configuration a relying party copies, with the development flag for http://.
    const recommended = await gatehouseConfig(new URL(t.issuer), client.id, secret as string, insecure);
    assert.equal(recommended.serverMetadata().supportsPKCE(), true, 'openid-client then sends no nonce or state');
    const { url, codeVerifier } = await startSignIn(recommended, redirectUri);
    assert.deepEqual([...url.searchParams.keys()].sort(), [
      'client_id',
      'code_challenge',
      'code_challenge_method',
      'redirect_uri',
      'response_type',
      'scope',
    ]);
    const callback = await browse(url, cookie);
    assert.deepEqual([...callback.searchParams.keys()].sort(), ['code', 'iss']);
    const tokens = await finishSignIn(recommended, callback, codeVerifier);
    const claims = tokens.claims();
    assert.equal(claims?.sub, sub);
    assert.ok(claims && !('nonce' in claims), JSON.stringify(claims));
    assert.deepEqual(await oidc.fetchUserInfo(recommended, tokens.access_token, sub), {
      sub,
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      email_verified: true,
    });
    const refreshed = await oidc.refreshTokenGrant(recommended, tokens.refresh_token as string);
    const again = refreshed.claims();
    assert.equal(again?.sub, sub);
    assert.ok(again && !('nonce' in again), JSON.stringify(again));
  });

  test('userinfo returns claims by scope', async () => {
    const tokens = await signIn();
    const info = await oidc.fetchUserInfo(config, tokens.access_token, sub);
    assert.deepEqual(info, { sub, name: 'Ada Lovelace', email: 'ada@example.test', email_verified: true });
    const narrow = await signIn('openid');
    assert.deepEqual(await oidc.fetchUserInfo(config, narrow.access_token, sub), { sub });
  });

  test('refresh rotates, and replaying a rotated token revokes the family, newest included', async () => {
    const tokens = await signIn();
    const second = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    assert.notEqual(second.refresh_token, tokens.refresh_token);
    const third = await oidc.refreshTokenGrant(config, second.refresh_token as string);
    t.clock.advance(10);
    await assert.rejects(oidc.refreshTokenGrant(config, tokens.refresh_token as string), { error: 'invalid_grant' });
    await assert.rejects(oidc.refreshTokenGrant(config, third.refresh_token as string), { error: 'invalid_grant' });
    const introspected = await oidc.tokenIntrospection(config, third.access_token);
    assert.equal(introspected.active, false);
  });

  test('a refresh returns a new ID token with the sign-in’s claims and nonce and a new at_hash (OIDC Core §12.2)', async () => {
    const tokens = await signIn();
    const first = tokens.claims();
    // enableNonRepudiationChecks above: openid-client verifies this ID token's signature against the JWKS too.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token as string);
    const claims = refreshed.claims();
    assert.ok(first && claims);
    assert.notEqual(refreshed.id_token, tokens.id_token);
    for (const name of ['iss', 'sub', 'aud', 'azp', 'auth_time', 'acr', 'sid', 'nonce'] as const)
      assert.deepEqual(claims[name], first[name], name);
    assert.deepEqual(claims.amr, first.amr);
    assert.ok(first.nonce);
    assert.equal(claims.at_hash, independentAtHash(refreshed.access_token));
    assert.notEqual(claims.at_hash, first.at_hash);
  });

  test('introspection and revocation', async () => {
    const tokens = await signIn();
    const active = await oidc.tokenIntrospection(config, tokens.access_token);
    assert.equal(active.active, true);
    assert.equal(active.sub, sub);
    assert.equal(active.client_id, client.id);
    const refresh = await oidc.tokenIntrospection(config, tokens.refresh_token as string);
    assert.equal(refresh.active, true);
    await oidc.tokenRevocation(config, tokens.refresh_token as string);
    // Nodes learn of a revocation by NOTIFY: wait until this one has (docs/decisions.md "Token state cache").
    await tokenStateSynced(t);
    assert.equal((await oidc.tokenIntrospection(config, tokens.refresh_token as string)).active, false);
    assert.equal((await oidc.tokenIntrospection(config, tokens.access_token)).active, false);
  });

  test('client credentials for a provisioned service client', async () => {
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    const serviceConfig = await oidc.discovery(
      new URL(t.issuer),
      service.client.id,
      {},
      oidc.ClientSecretPost(service.secret),
      insecure,
    );
    const tokens = await oidc.clientCredentialsGrant(serviceConfig, {
      scope: 'read',
      resource: service.resource.audience,
    });
    assert.equal(tokens.refresh_token, undefined);
    assert.equal(tokens.id_token, undefined);
    const introspected = await oidc.tokenIntrospection(serviceConfig, tokens.access_token);
    assert.equal(introspected.sub, service.client.id);
    assert.equal(introspected.aud, service.resource.audience);
  });

  test('RP-initiated logout with this session’s ID token ends it and returns to the registered URI with state', async () => {
    // Signed in with its own session: only a hint issued in the session being ended skips the confirmation.
    const { cookie: own } = await makeSession(t, sub);
    const tokens = await signIn('openid', own);
    const url = oidc.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token as string,
      post_logout_redirect_uri: 'https://app.example.test/bye',
      state: 'bye-1',
    });
    const back = await browse(url, own);
    assert.equal(back.href, 'https://app.example.test/bye?state=bye-1');
    const after = await fetch(
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
        state: 's',
        nonce: 'n',
        prompt: 'none',
      }),
      { redirect: 'manual', headers: { cookie: own } },
    );
    assert.equal(new URL(after.headers.get('location') as string).searchParams.get('error'), 'login_required');
  });
});
