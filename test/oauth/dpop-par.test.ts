// Authorization codes bound to a DPoP key (RFC 9449 §10): by the proof sent with a pushed authorization request
// (§10.1) or by `dpop_jkt`, in a pushed request or at /oauth/authorize. oauth4webapi pushes and exchanges against a
// listening Gatehouse; the refusals are made by hand so each can be wrong in one way, with the whole envelope.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, exportJWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { dpopKeys, followRealTime, type KeyPair, proof } from '../helpers/dpop.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { browse, assertFetchedEnvelope as envelope, startListeningIssuer } from '../helpers/oauth-server.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const callbackUri = 'http://127.0.0.1:61250/callback';
const BOUND = 'The authorization code is bound to a DPoP key (dpop_jkt): send a DPoP proof signed with that key';

const thumbprint = async (keys: KeyPair) => calculateJwkThumbprint(await exportJWK(keys.publicKey));
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString());

/** A listening issuer as oauth4webapi discovers it, and a public (native) client of it. */
async function issuerWithPublicClient(overrides: Parameters<typeof startListeningIssuer>[0] = {}) {
  const t = await startListeningIssuer(overrides);
  followRealTime(t.clock);
  const issuer = new URL(t.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const { client: native } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    redirectUris: ['http://127.0.0.1/callback'],
  });
  return { t, as, native, client: { client_id: native.id } as oauth.Client };
}

describe('DPoP-bound authorization codes: POST /oauth/par with a DPoP proof, dpop_jkt at /oauth/authorize', async () => {
  const { t, as, native, client } = await issuerWithPublicClient();
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);
  const parEndpoint = as.pushed_authorization_request_endpoint as string;
  const pushedCount = async () => (await t.sql`select count(*)::int as n from oauth_pushed_requests`)[0]?.n;

  const authorizationParams = async (extra: Record<string, string> = {}) => {
    const verifier = oauth.generateRandomCodeVerifier();
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: native.id,
      redirect_uri: callbackUri,
      scope: 'openid',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: 'bound-state',
      ...extra,
    });
    return { verifier, params };
  };

  /** Pushes with oauth4webapi (a proof by `keys` when given) and follows the request_uri to the callback's code. */
  async function pushAndAuthorize(keys: KeyPair | null, extra: Record<string, string> = {}) {
    const { verifier, params } = await authorizationParams(extra);
    const options = keys ? { ...insecure, DPoP: oauth.DPoP(client, keys as CryptoKeyPair) } : insecure;
    const response = await oauth.pushedAuthorizationRequest(as, client, oauth.None(), params, options);
    const pushed = await oauth.processPushedAuthorizationResponse(as, client, response);
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({ client_id: native.id, request_uri: pushed.request_uri }).toString();
    return { verifier, callback: oauth.validateAuthResponse(as, client, await browse(url, cookie), 'bound-state') };
  }

  /** Authorizes with the parameters in the query (no PAR) and returns the callback's code. */
  async function authorizeDirectly(extra: Record<string, string>) {
    const { verifier, params } = await authorizationParams(extra);
    const url = new URL(as.authorization_endpoint as string);
    url.search = params.toString();
    return { verifier, callback: oauth.validateAuthResponse(as, client, await browse(url, cookie), 'bound-state') };
  }

  const exchange = async (code: { verifier: string; callback: URLSearchParams }, keys: KeyPair) =>
    oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), code.callback, callbackUri, code.verifier, {
        ...insecure,
        DPoP: oauth.DPoP(client, keys as CryptoKeyPair),
      }),
    );

  const refusedExchange = (code: { verifier: string; callback: URLSearchParams }, keys: KeyPair) =>
    assert.rejects(exchange(code, keys), (e: oauth.ResponseBodyError) => {
      assert.equal(e.status, 400);
      assert.equal(e.error, 'invalid_grant');
      assert.equal(e.error_description, BOUND);
      return true;
    });

  const exchangeWithoutProof = (code: { verifier: string; callback: URLSearchParams }) =>
    fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: native.id,
        code: code.callback.get('code') as string,
        redirect_uri: callbackUri,
        code_verifier: code.verifier,
      }),
    });

  const rawPush = async (dpop: string | null, extra: Record<string, string> = {}) => {
    const { params } = await authorizationParams(extra);
    return fetch(parEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(dpop === null ? {} : { dpop }) },
      body: params,
    });
  };

  test('a code pushed with key A is exchanged with A: a DPoP token whose cnf.jkt is A', async () => {
    const a = await dpopKeys();
    const tokens = await exchange(await pushAndAuthorize(a), a);
    assert.equal(tokens.token_type, 'dpop');
    assert.deepEqual(claimsOf(tokens.access_token).cnf, { jkt: await thumbprint(a) });
  });

  test('a code pushed with key A and exchanged with key B is refused with invalid_grant; A still exchanges it', async () => {
    const a = await dpopKeys();
    const code = await pushAndAuthorize(a);
    await refusedExchange(code, await dpopKeys());
    // The refusal spent nothing: the holder of A exchanges the same code.
    assert.deepEqual(claimsOf((await exchange(code, a)).access_token).cnf, { jkt: await thumbprint(a) });
  });

  test('a code pushed with a proof and exchanged without one is refused with invalid_grant', async () => {
    const code = await pushAndAuthorize(await dpopKeys());
    await envelope(await exchangeWithoutProof(code), 400, 'invalid_grant', BOUND);
  });

  test('dpop_jkt in a pushed request without a proof binds the code to that key', async () => {
    const a = await dpopKeys();
    const code = await pushAndAuthorize(null, { dpop_jkt: await thumbprint(a) });
    await refusedExchange(code, await dpopKeys());
    await envelope(await exchangeWithoutProof(code), 400, 'invalid_grant', BOUND);
    assert.deepEqual(claimsOf((await exchange(code, a)).access_token).cnf, { jkt: await thumbprint(a) });
  });

  test('dpop_jkt at /oauth/authorize binds the code: another key is refused with invalid_grant, the named one works', async () => {
    const a = await dpopKeys();
    const code = await authorizeDirectly({ dpop_jkt: await thumbprint(a) });
    await refusedExchange(code, await dpopKeys());
    await envelope(await exchangeWithoutProof(code), 400, 'invalid_grant', BOUND);
    assert.deepEqual(claimsOf((await exchange(code, a)).access_token).cnf, { jkt: await thumbprint(a) });
  });

  test('a malformed dpop_jkt at /oauth/authorize is redirected back with invalid_request and no code', async () => {
    const { params } = await authorizationParams({ dpop_jkt: 'not-a-thumbprint' });
    const url = new URL(as.authorization_endpoint as string);
    url.search = params.toString();
    const callback = await browse(url, cookie);
    assert.equal(`${callback.origin}${callback.pathname}`, callbackUri);
    assert.deepEqual(Object.fromEntries(callback.searchParams), {
      error: 'invalid_request',
      error_description: 'dpop_jkt must be the 43-character base64url SHA-256 JWK thumbprint (RFC 7638)',
      state: 'bound-state',
      iss: t.issuer,
    });
  });

  test('a garbage DPoP header on a push is refused with invalid_dpop_proof and stores nothing', async () => {
    const before = await pushedCount();
    await envelope(await rawPush('garbage'), 400, 'invalid_dpop_proof', 'The DPoP proof is not a compact JWS');
    assert.equal(await pushedCount(), before);
  });

  test('an unauthenticated push is invalid_client whatever its DPoP header, and spends no proof', async () => {
    const { params } = await authorizationParams();
    const push = (clientId: string, secret: string | null, dpop: string) => {
      const body = new URLSearchParams(params);
      body.set('client_id', clientId);
      if (secret !== null) body.set('client_secret', secret);
      return fetch(parEndpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', dpop },
        body,
      });
    };
    const WRONG = 'Unknown client or wrong credentials';
    const before = await pushedCount();
    const { client: web } = await makeClient(t.sql, t.secrets.clientSecret, { redirectUris: [callbackUri] });
    const dpop = await proof(await dpopKeys(), { htm: 'POST', htu: parEndpoint });
    for (const [clientId, secret, description] of [
      ['cli_unknown', null, WRONG],
      [web.id, 'not-the-secret', WRONG],
      [web.id, null, WRONG],
    ] as const)
      for (const header of ['garbage', dpop]) {
        await envelope(await push(clientId, secret, header), 401, 'invalid_client', description);
      }
    assert.equal(await pushedCount(), before);
    // The proof was not spent by the refusals: the real client's push with it is accepted.
    assert.equal((await push(native.id, null, dpop)).status, 201);
  });

  test("a push's proof made for the token endpoint is refused with invalid_dpop_proof (htu)", async () => {
    const dpop = await proof(await dpopKeys(), { htm: 'POST', htu: as.token_endpoint });
    await envelope(await rawPush(dpop), 400, 'invalid_dpop_proof', `The DPoP proof's htu must be ${parEndpoint}`);
  });

  test('a push whose dpop_jkt names another key than its proof is refused with invalid_dpop_proof', async () => {
    const before = await pushedCount();
    const dpop = await proof(await dpopKeys(), { htm: 'POST', htu: parEndpoint });
    const response = await rawPush(dpop, { dpop_jkt: await thumbprint(await dpopKeys()) });
    await envelope(response, 400, 'invalid_dpop_proof', "The DPoP proof's key is not the one dpop_jkt names");
    assert.equal(await pushedCount(), before);
  });

  test('a push whose dpop_jkt names its proof key is accepted', async () => {
    const a = await dpopKeys();
    const dpop = await proof(a, { htm: 'POST', htu: parEndpoint });
    const response = await rawPush(dpop, { dpop_jkt: await thumbprint(a) });
    assert.equal(response.status, 201);
  });

  test('a replayed push proof is refused with invalid_dpop_proof (jti)', async () => {
    const dpop = await proof(await dpopKeys(), { htm: 'POST', htu: parEndpoint });
    assert.equal((await rawPush(dpop)).status, 201);
    const before = await pushedCount();
    await envelope(await rawPush(dpop), 400, 'invalid_dpop_proof', 'The DPoP proof was already used (jti)');
    assert.equal(await pushedCount(), before);
  });

  test('a malformed dpop_jkt in a push is refused with invalid_request', async () => {
    const response = await rawPush(null, { dpop_jkt: 'A'.repeat(44) });
    await envelope(
      response,
      400,
      'invalid_request',
      'dpop_jkt must be the 43-character base64url SHA-256 JWK thumbprint (RFC 7638)',
    );
  });
});

describe('POST /oauth/par with a DPoP proof under dpop.require_nonce (RFC 9449 §8)', async () => {
  const { as, client } = await issuerWithPublicClient({ dpop: { require_nonce: true } });

  test('a proof without the nonce gets use_dpop_nonce and the nonce; oauth4webapi retries and pushes', async () => {
    const DPoP = oauth.DPoP(client, (await dpopKeys()) as CryptoKeyPair);
    const params = new URLSearchParams({
      response_type: 'code',
      redirect_uri: callbackUri,
      scope: 'openid',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    });
    const push = () => oauth.pushedAuthorizationRequest(as, client, oauth.None(), params, { ...insecure, DPoP });
    const first = await push();
    assert.match(first.headers.get('dpop-nonce') ?? '', /^[0-9a-z]+\.[A-Za-z0-9_-]{22}$/);
    await envelope(
      first.clone(),
      400,
      'use_dpop_nonce',
      'Resend the request with a DPoP proof carrying the nonce from the DPoP-Nonce header',
    );
    await assert.rejects(oauth.processPushedAuthorizationResponse(as, client, first), (e) => oauth.isDPoPNonceError(e));
    const pushed = await oauth.processPushedAuthorizationResponse(as, client, await push());
    assert.match(pushed.request_uri, /^urn:ietf:params:oauth:request_uri:/);
  });
});
