// Full flows with oauth4webapi (v3), the strictest client we can run, against a listening Gatehouse.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, startListeningIssuer } from '../helpers/oauth-server.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';
import { discover, finishSignIn, startSignIn } from '../integrations/snippets/oauth4webapi.ts';

describe('oauth4webapi against Gatehouse', async () => {
  const t = await startListeningIssuer();
  const issuer = new URL(t.issuer);
  const insecure = { [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const redirectUri = 'http://127.0.0.1/callback';
  // A native public client on a loopback redirect URI with an ephemeral port (RFC 8252 §7.3).
  const { client: native } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    redirectUris: [redirectUri],
    postLogoutRedirectUris: ['http://127.0.0.1/logged-out'],
  });
  const client: oauth.Client = { client_id: native.id };
  const sub = await makeIdentity(t.sql);
  const { cookie, session: signedIn } = await makeSession(t, sub);
  // OIDC Core §3.1.3.6, computed here rather than with the server's helper: left half of SHA-256, base64url.
  const independentAtHash = (accessToken: string) =>
    createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');

  const signIn = async (session = cookie) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const callbackUri = 'http://127.0.0.1:61234/callback';
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: native.id,
      redirect_uri: callbackUri,
      scope: 'openid offline_access',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    }).toString();
    const params = oauth.validateAuthResponse(as, client, await browse(url, session), state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      callbackUri,
      verifier,
      insecure,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
      expectedNonce: nonce,
      requireIdToken: true,
    });
    // Checks the RS256 signature of the ID token against the JWKS.
    await oauth.validateApplicationLevelSignature(as, response, insecure);
    return result;
  };

  test('authorization code + PKCE + state + iss + nonce with a validated ID token', async () => {
    const result = await signIn();
    const claims = oauth.getValidatedIdTokenClaims(result);
    assert.ok(claims);
    assert.equal(claims.sub, sub);
    assert.equal(claims.azp, native.id);
    assert.equal(claims.at_hash, independentAtHash(result.access_token));
    assert.equal(claims.auth_time, Math.floor(signedIn.authTime.getTime() / 1000));
  });

  test('the default code flow without state or nonce signs in; neither ID token has a nonce', async () => {
    // docs/integrations.md: the configuration a relying party copies, with the development flag for http://.
    const discovered = await discover(issuer, insecure);
    const callbackUri = 'http://127.0.0.1:61235/callback';
    const { url, codeVerifier } = await startSignIn(discovered, client, callbackUri);
    assert.equal(url.searchParams.has('state') || url.searchParams.has('nonce'), false);
    const callback = await browse(url, cookie);
    const result = await finishSignIn(discovered, client, callback, callbackUri, codeVerifier, insecure);
    const claims = oauth.getValidatedIdTokenClaims(result);
    assert.equal(claims?.sub, sub);
    assert.ok(claims && !('nonce' in claims), JSON.stringify(claims));
    const response = await oauth.refreshTokenGrantRequest(
      discovered,
      client,
      oauth.None(),
      result.refresh_token as string,
      insecure,
    );
    const refreshed = oauth.getValidatedIdTokenClaims(
      await oauth.processRefreshTokenResponse(discovered, client, response),
    );
    assert.equal(refreshed?.sub, sub);
    assert.ok(refreshed && !('nonce' in refreshed), JSON.stringify(refreshed));
  });

  test('the access token is a valid RFC 9068 JWT for a resource server', async () => {
    const result = await signIn();
    const request = new Request('https://rs.example.test/', {
      headers: { authorization: `Bearer ${result.access_token}` },
    });
    const claims = await oauth.validateJwtAccessToken(as, request, t.issuer, insecure);
    assert.equal(claims.sub, sub);
    assert.equal(claims.client_id, native.id);
  });

  test('userinfo', async () => {
    const result = await signIn();
    const response = await oauth.userInfoRequest(as, client, result.access_token, insecure);
    const info = await oauth.processUserInfoResponse(as, client, sub, response);
    assert.equal(info.sub, sub);
  });

  test('refresh rotation and replay revoking the family', async () => {
    const result = await signIn();
    const first = result.refresh_token as string;
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), first, insecure);
    const rotated = await oauth.processRefreshTokenResponse(as, client, response);
    await oauth.validateApplicationLevelSignature(as, response, insecure);
    assert.ok(rotated.refresh_token && rotated.refresh_token !== first);
    // The refresh of an `openid` grant carries a new ID token for the same sign-in, bound to the new access token.
    const refreshedClaims = oauth.getValidatedIdTokenClaims(rotated);
    assert.equal(refreshedClaims?.sub, sub);
    assert.equal(refreshedClaims?.at_hash, independentAtHash(rotated.access_token));
    assert.equal(refreshedClaims?.nonce, oauth.getValidatedIdTokenClaims(result)?.nonce);
    t.clock.advance(10);
    const replay = oauth
      .refreshTokenGrantRequest(as, client, oauth.None(), first, insecure)
      .then((r) => oauth.processRefreshTokenResponse(as, client, r));
    await assert.rejects(replay, (e: oauth.ResponseBodyError) => e.error === 'invalid_grant');
    const newest = oauth
      .refreshTokenGrantRequest(as, client, oauth.None(), rotated.refresh_token as string, insecure)
      .then((r) => oauth.processRefreshTokenResponse(as, client, r));
    await assert.rejects(newest, (e: oauth.ResponseBodyError) => e.error === 'invalid_grant');
  });

  test('a refresh asking for a narrower scope gets it without an ID token; the next refresh gets the full scope', async () => {
    const result = await signIn();
    const narrowed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), result.refresh_token as string, {
        ...insecure,
        additionalParameters: { scope: 'offline_access' },
      }),
    );
    assert.equal(narrowed.scope, 'offline_access');
    assert.equal(narrowed.id_token, undefined, 'no openid, no ID token');
    const request = new Request('https://rs.example.test/', {
      headers: { authorization: `Bearer ${narrowed.access_token}` },
    });
    assert.equal((await oauth.validateJwtAccessToken(as, request, t.issuer, insecure)).scope, 'offline_access');
    const full = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), narrowed.refresh_token as string, insecure),
    );
    assert.equal(full.scope, 'openid offline_access');
    assert.equal(oauth.getValidatedIdTokenClaims(full)?.sub, sub);
    const wider = oauth
      .refreshTokenGrantRequest(as, client, oauth.None(), full.refresh_token as string, {
        ...insecure,
        additionalParameters: { scope: 'openid profile offline_access' },
      })
      .then((r) => oauth.processRefreshTokenResponse(as, client, r));
    await assert.rejects(wider, (e: oauth.ResponseBodyError) => e.error === 'invalid_scope' && e.status === 400);
  });

  test('client credentials, introspection and revocation by a service client', async () => {
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    const sc: oauth.Client = { client_id: service.client.id };
    const auth = oauth.ClientSecretPost(service.secret);
    const tokenResponse = await oauth.clientCredentialsGrantRequest(
      as,
      sc,
      auth,
      new URLSearchParams({ scope: 'read', resource: service.resource.audience }),
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, sc, tokenResponse);
    assert.equal(tokens.refresh_token, undefined);
    const introspect = async (token: string) =>
      oauth.processIntrospectionResponse(as, sc, await oauth.introspectionRequest(as, sc, auth, token, insecure));
    assert.equal((await introspect(tokens.access_token)).active, true);
    const user = await signIn();
    assert.equal(
      (await introspect(user.access_token)).active,
      false,
      'a user token (audience: the issuer) is not for a resource server provisioned for another audience',
    );
    assert.equal(
      (await introspect(user.refresh_token as string)).active,
      false,
      'another client’s refresh token is foreign',
    );
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, sc, auth, tokens.access_token, insecure));
    // Nodes learn of a revocation by NOTIFY: wait until this one has (docs/decisions.md "Token state cache").
    await tokenStateSynced(t);
    assert.equal((await introspect(tokens.access_token)).active, false);
  });

  test('HTTP Basic is refused, and the reason reaches the WWWAuthenticateChallengeError (Auth.js reports only it)', async () => {
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    const sc: oauth.Client = { client_id: service.client.id };
    const basic = oauth.ClientSecretBasic(service.secret);
    const description =
      'HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)';
    const expected = {
      scheme: 'basic',
      parameters: { realm: 'gatehouse', error: 'invalid_client', error_description: description },
    };
    const refusals = [
      async () => {
        const params = new URLSearchParams({ scope: 'read', resource: service.resource.audience });
        const response = await oauth.clientCredentialsGrantRequest(as, sc, basic, params, insecure);
        return oauth.processClientCredentialsResponse(as, sc, response);
      },
      async () =>
        oauth.processIntrospectionResponse(as, sc, await oauth.introspectionRequest(as, sc, basic, 'x', insecure)),
      async () => oauth.processRevocationResponse(await oauth.revocationRequest(as, sc, basic, 'x', insecure)),
    ];
    for (const refused of refusals)
      await assert.rejects(refused, (error: unknown) => {
        assert.ok(error instanceof oauth.WWWAuthenticateChallengeError);
        assert.equal(error.status, 401);
        assert.deepEqual(error.cause, [expected]);
        return true;
      });
  });

  test('a public client may not introspect', async () => {
    const result = await signIn();
    const response = await oauth.introspectionRequest(as, client, oauth.None(), result.access_token, insecure);
    assert.equal(response.status, 401);
    const body = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(body, {
      error: 'invalid_client',
      error_description: 'Only confidential clients may introspect tokens',
      request_id: response.headers.get('x-request-id'),
    });
  });

  test('RP-initiated logout at the end_session_endpoint ends the session and returns with state', async () => {
    const { cookie: own, session } = await makeSession(t, sub);
    const result = await signIn(own);
    const endSession = new URL(as.end_session_endpoint as string);
    endSession.search = new URLSearchParams({
      id_token_hint: result.id_token as string,
      post_logout_redirect_uri: 'http://127.0.0.1/logged-out',
      state: 'bye-2',
    }).toString();
    const back = await browse(endSession, own);
    assert.equal(back.href, 'http://127.0.0.1/logged-out?state=bye-2');
    const [row] = await t.sql`select revoked_at from sessions where id = ${session.id}`;
    assert.ok(row?.revoked_at, 'the session is ended in the database');
    const again = new URL(as.authorization_endpoint as string);
    again.search = new URLSearchParams({
      response_type: 'code',
      client_id: native.id,
      redirect_uri: 'http://127.0.0.1:61234/callback',
      scope: 'openid',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
      state: 's',
      nonce: 'n',
    }).toString();
    assert.equal((await browse(again, own)).pathname, '/signin', 'the old cookie no longer signs anyone in');
  });
});
