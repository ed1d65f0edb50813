// DPoP (RFC 9449) end to end with oauth4webapi against a listening Gatehouse, and the refusals with proofs made by
// hand (jose), each answered with its RFC error and the whole envelope.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { DPOP_ALGS as ALGS, ath, dpopKeys, followRealTime, type KeyPair, proof } from '../helpers/dpop.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, assertFetchedEnvelope as envelope, startListeningIssuer } from '../helpers/oauth-server.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('DPoP (RFC 9449) at the token endpoint, userinfo and introspection', async () => {
  const t = await startListeningIssuer();
  followRealTime(t.clock);
  const issuer = new URL(t.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const callbackUri = 'http://127.0.0.1:61234/callback';
  const { client: native } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  const client: oauth.Client = { client_id: native.id };
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);
  const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);

  async function signIn(keys: KeyPair) {
    const DPoP = oauth.DPoP(client, keys as CryptoKeyPair);
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: native.id,
      redirect_uri: callbackUri,
      scope: 'openid offline_access',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const params = oauth.validateAuthResponse(as, client, await browse(url, cookie), oauth.skipStateCheck);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      callbackUri,
      verifier,
      {
        ...insecure,
        DPoP,
      },
    );
    return { DPoP, result: await oauth.processAuthorizationCodeResponse(as, client, response) };
  }

  test('discovery advertises the proof algorithms', () => {
    assert.deepEqual(as.dpop_signing_alg_values_supported, ['ES256', 'EdDSA', 'RS256', 'PS256']);
  });

  test('a code exchange with a proof issues a DPoP token bound to the key, usable at userinfo with a proof', async () => {
    const keys = await dpopKeys();
    const { DPoP, result } = await signIn(keys);
    assert.equal(result.token_type, 'dpop');
    const claims = JSON.parse(Buffer.from(result.access_token.split('.')[1] as string, 'base64url').toString());
    assert.deepEqual(claims.cnf, { jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      sub,
      await oauth.userInfoRequest(as, client, result.access_token, { ...insecure, DPoP }),
    );
    assert.equal(info.sub, sub);
  });

  test('a public client refreshes with the same key; a refresh with another key is refused with invalid_grant', async () => {
    const keys = await dpopKeys();
    const { DPoP, result } = await signIn(keys);
    const other = oauth.DPoP(client, (await dpopKeys()) as CryptoKeyPair);
    const refused = oauth
      .refreshTokenGrantRequest(as, client, oauth.None(), result.refresh_token as string, { ...insecure, DPoP: other })
      .then((r) => oauth.processRefreshTokenResponse(as, client, r));
    await assert.rejects(refused, (e: oauth.ResponseBodyError) => {
      assert.equal(e.error, 'invalid_grant');
      assert.equal(
        e.error_description,
        'The refresh token is bound to a DPoP key: send a DPoP proof signed with that key',
      );
      return true;
    });
    const withoutProof = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: native.id,
        refresh_token: result.refresh_token as string,
      }),
    });
    await envelope(
      withoutProof,
      400,
      'invalid_grant',
      'The refresh token is bound to a DPoP key: send a DPoP proof signed with that key',
    );
    // The refusals changed nothing: the right key still refreshes.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), result.refresh_token as string, {
        ...insecure,
        DPoP,
      }),
    );
    assert.equal(refreshed.token_type, 'dpop');
  });

  test('client credentials with a proof: token_type DPoP, and introspection answers cnf and token_type', async () => {
    const keys = await dpopKeys();
    const DPoP = oauth.DPoP({}, keys as CryptoKeyPair);
    const auth = oauth.ClientSecretPost(service.secret);
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      { client_id: service.client.id },
      auth,
      new URLSearchParams({ scope: 'read', resource: service.resource.audience }),
      { ...insecure, DPoP },
    );
    const tokens = await oauth.processClientCredentialsResponse(as, { client_id: service.client.id }, response);
    assert.equal(tokens.token_type, 'dpop');
    const introspected = await oauth.processIntrospectionResponse(
      as,
      { client_id: service.client.id },
      await oauth.introspectionRequest(as, { client_id: service.client.id }, auth, tokens.access_token, insecure),
    );
    assert.equal(introspected.active, true);
    assert.equal(introspected.token_type, 'DPoP');
    assert.deepEqual(introspected.cnf, { jkt: await calculateJwkThumbprint(await exportJWK(keys.publicKey)) });
  });

  test('a DPoP-bound token presented as Bearer at userinfo is refused with invalid_token and a DPoP challenge', async () => {
    const { result } = await signIn(await dpopKeys());
    const response = await fetch(as.userinfo_endpoint as string, {
      headers: { authorization: `Bearer ${result.access_token}` },
    });
    const description = 'The access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof';
    assert.equal(
      response.headers.get('www-authenticate'),
      `DPoP error="invalid_token", error_description="${description}", algs="${ALGS}"`,
    );
    await envelope(response, 401, 'invalid_token', description);
  });

  test('proofs that do not match the request or the token are refused with invalid_dpop_proof', async () => {
    const keys = await dpopKeys();
    const { result } = await signIn(keys);
    const token = result.access_token;
    const htu = as.userinfo_endpoint as string;
    const at = (dpop: string) => fetch(htu, { headers: { authorization: `DPoP ${token}`, dpop } });
    const cases: [string, Promise<string>, string][] = [
      [
        'wrong htu',
        proof(keys, { htm: 'GET', htu: `${t.issuer}/oauth/token`, ath: ath(token) }),
        `The DPoP proof's htu must be ${htu}`,
      ],
      ['wrong htm', proof(keys, { htm: 'POST', htu, ath: ath(token) }), "The DPoP proof's htm must be GET"],
      [
        'stale iat',
        proof(keys, { htm: 'GET', htu, ath: ath(token), iat: Math.floor(Date.now() / 1000) - 120 }),
        'The DPoP proof was not issued just now (iat)',
      ],
      ['no ath', proof(keys, { htm: 'GET', htu }), 'The DPoP proof does not hash this access token (ath)'],
      [
        'another key',
        dpopKeys().then((other) => proof(other, { htm: 'GET', htu, ath: ath(token) })),
        'The DPoP proof was signed by another key than the token is bound to',
      ],
    ];
    for (const [name, made, description] of cases) {
      const response = await at(await made);
      assert.equal(
        response.headers.get('www-authenticate'),
        `DPoP error="invalid_dpop_proof", error_description="${description}", algs="${ALGS}"`,
        name,
      );
      await envelope(response, 401, 'invalid_dpop_proof', description);
    }
    // A query string is not part of htu (RFC 9449 §4.3): the same proof shape with one still verifies.
    const good = await proof(keys, { htm: 'GET', htu: `${htu}?x=1#f`, ath: ath(token) });
    assert.equal((await at(good)).status, 200);
  });

  test('a replayed proof is refused with invalid_dpop_proof at the token endpoint', async () => {
    const keys = await dpopKeys();
    const dpop = await proof(keys, { htm: 'POST', htu: as.token_endpoint });
    const request = () =>
      fetch(as.token_endpoint as string, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: service.client.id,
          client_secret: service.secret,
          scope: 'read',
          resource: service.resource.audience,
        }),
      });
    const first = await request();
    assert.equal(first.status, 200);
    assert.equal(((await first.json()) as { token_type: string }).token_type, 'DPoP');
    await envelope(await request(), 400, 'invalid_dpop_proof', 'The DPoP proof was already used (jti)');
  });

  test('a proof with a symmetric or unlisted algorithm is refused with invalid_dpop_proof', async () => {
    const secret = new TextEncoder().encode('0123456789abcdef0123456789abcdef');
    const hs = await new SignJWT({
      jti: randomUUID(),
      iat: Math.floor(Date.now() / 1000),
      htm: 'POST',
      htu: as.token_endpoint,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt' })
      .sign(secret);
    const response = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: hs },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: service.client.id }),
    });
    await envelope(
      response,
      400,
      'invalid_dpop_proof',
      `The DPoP proof must be a dpop+jwt signed with ${ALGS.replaceAll(' ', ', ')} by the public key in its jwk header`,
    );
  });

  test('a client registered with dpop_bound_access_tokens gets no token without a proof', async () => {
    const bound = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
    await t.sql`update oauth_clients set dpop_bound_access_tokens = true where id = ${bound.client.id}`;
    const response = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: bound.client.id,
        client_secret: bound.secret,
        scope: 'read',
        resource: bound.resource.audience,
      }),
    });
    await envelope(
      response,
      400,
      'invalid_dpop_proof',
      'This client must send a DPoP proof with every token request (dpop_bound_access_tokens)',
    );
  });
});

describe('DPoP nonces (RFC 9449 §8) with dpop.require_nonce', async () => {
  const t = await startListeningIssuer({ dpop: { require_nonce: true } });
  followRealTime(t.clock);
  const issuer = new URL(t.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read']);
  const client: oauth.Client = { client_id: service.client.id };

  test('a proof without the nonce gets use_dpop_nonce and the nonce; oauth4webapi retries once and succeeds', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const DPoP = oauth.DPoP(client, keys as CryptoKeyPair);
    const request = () =>
      oauth.clientCredentialsGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(service.secret),
        new URLSearchParams({ scope: 'read', resource: service.resource.audience }),
        { ...insecure, DPoP },
      );
    const first = await request();
    assert.equal(first.status, 400);
    assert.ok(first.headers.get('dpop-nonce'));
    const refused = oauth.processClientCredentialsResponse(as, client, first);
    await assert.rejects(refused, (e: unknown) => oauth.isDPoPNonceError(e));
    const tokens = await oauth.processClientCredentialsResponse(as, client, await request());
    assert.equal(tokens.token_type, 'dpop');
  });

  test('the refusal without a nonce carries the whole envelope and the DPoP-Nonce header', async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const response = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        dpop: await proof(keys, { htm: 'POST', htu: as.token_endpoint }),
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: service.client.id }),
    });
    assert.match(response.headers.get('dpop-nonce') ?? '', /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    await envelope(
      response,
      400,
      'use_dpop_nonce',
      'Resend the request with a DPoP proof carrying the nonce from the DPoP-Nonce header',
    );
  });
});
