// Requests built to slip past the gateway: path tricks that must land on the policy of the real path, encodings that
// have no single safe reading, tokens in the query string, and forged or misused tokens. Paths go byte for byte over
// a real socket (rawGet), since inject() would resolve them first.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { send } from '../helpers/over-socket.ts';
import { assertRefusal, json, startGatewaySuite } from './suite.ts';

describe('gateway: hostile requests', async () => {
  const { t, serviceToken, person, get, rawGet, notForwarded } = await startGatewaySuite();

  test('path tricks are normalised onto the policy that covers the real path', async () => {
    const token = await serviceToken();
    const roleRefusal = 'A client-credentials token cannot satisfy a role requirement';
    for (const url of [
      '/app/p/api/items/../admin',
      '/app/p/api/./admin',
      '/app/p//api//admin/',
      '/app/p/api/%61dmin',
      '/app/public/../p/api/admin',
    ]) {
      const r = await notForwarded(() => rawGet(url, token));
      assertRefusal(r, 403, 'insufficient_role', roleRefusal);
    }
    // And onto a lesser policy only when the real path is outside the stricter one; the upstream gets that path.
    const r = await rawGet('/app/p/api/admin/../items', token);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((json(r) as { url: string }).url, '/app/p/api/items');
  });

  test('ambiguous encodings are refused with 400 invalid_request before any check', async () => {
    const token = await serviceToken();
    const encoded = 'must not percent-encode "/", "\\", ".", "%", ";", "?", "#" or control characters';
    for (const [url, why] of [
      ['/app/p/api/%2e%2e/admin', encoded],
      ['/app/p/api/items/%2E%2E/admin', encoded],
      ['/app/p/api%2Fadmin', encoded],
      ['/app/p/api/%252e%252e/admin', encoded],
      ['/app/p/api/admin;x=1', 'must not contain ";" (path parameters)'],
    ]) {
      const r = await notForwarded(() => rawGet(url as string, token));
      assert.equal(r.statusCode, 400, url as string);
      assertRefusal(r, 400, 'invalid_request', `The request path ${why}`);
    }
    const leaving = await notForwarded(() => rawGet('/app/p/api/../../../oauth/jwks', token));
    assertRefusal(leaving, 400, 'invalid_request', 'The request path leaves the gateway prefix once normalised');
  });

  test('a token in the query string is refused with 400 invalid_request, never used or forwarded', async () => {
    const token = await serviceToken();
    for (const headers of [{}, { authorization: `Bearer ${token}` }]) {
      const r = await notForwarded(() =>
        send(t, { method: 'GET', url: `/app/p/api/items?access_token=${token}`, headers }),
      );
      assertRefusal(
        r,
        400,
        'invalid_request',
        'Send the access token in the Authorization header, never in the query string',
      );
    }
  });

  test('a token parameter spelled another way an upstream could read as access_token is refused too', async () => {
    const token = await serviceToken();
    for (const name of [
      'access%5Ftoken',
      'access%5ftoken',
      'ACCESS_TOKEN',
      'Access%5FToken',
      '%61ccess_token',
      'access.token',
      'access+token',
      'access%20token',
      'access[token',
      'access_token[]',
      'access_token%5B0%5D',
      '%20access_token',
    ]) {
      const r = await notForwarded(() =>
        send(t, { method: 'GET', url: `/app/p/api/items?q=1&${name}=${token}`, headers: {} }),
      );
      assertRefusal(
        r,
        400,
        'invalid_request',
        'Send the access token in the Authorization header, never in the query string',
      );
    }
    // Names that only resemble it, and the words as a value, are ordinary parameters.
    for (const query of ['access_tokens=1', 'my_access_token=1', 'q=access_token', 'access=1&token=2'])
      assert.equal((await get(`/app/public/page?${query}`)).statusCode, 200, query);
  });

  test('forged tokens are refused with 401 invalid_token: alg none, HS256 keyed with our public key, foreign jku, an ID token', async () => {
    const { createHmac, generateKeyPairSync, sign } = await import('node:crypto');
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const valid = await serviceToken();
    const [, payload] = valid.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const kid = (JSON.parse(Buffer.from(valid.split('.')[0] as string, 'base64url').toString()) as { kid: string }).kid;
    const jwks = (await send(t, { method: 'GET', url: '/.well-known/jwks.json' })).json() as { keys: object[] };
    const { createPublicKey } = await import('node:crypto');
    const publicPem = createPublicKey({ key: jwks.keys[0] as never, format: 'jwk' }).export({
      type: 'spki',
      format: 'pem',
    });
    const none = `${b64({ alg: 'none', typ: 'at+jwt', kid })}.${b64(claims)}.`;
    const hsInput = `${b64({ alg: 'HS256', typ: 'at+jwt', kid })}.${b64(claims)}`;
    const hs256 = `${hsInput}.${createHmac('sha256', publicPem).update(hsInput).digest('base64url')}`;
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jkuInput = `${b64({ alg: 'RS256', typ: 'at+jwt', kid: 'attacker', jku: 'https://evil.test/jwks.json' })}.${b64(claims)}`;
    const jku = `${jkuInput}.${sign('sha256', Buffer.from(jkuInput), foreign.privateKey).toString('base64url')}`;
    const jkuOurKid = `${b64({ alg: 'RS256', typ: 'at+jwt', kid, jku: 'https://evil.test/jwks.json' })}.${b64(claims)}`;
    const jkuSameKid = `${jkuOurKid}.${sign('sha256', Buffer.from(jkuOurKid), foreign.privateKey).toString('base64url')}`;
    const { tokens } = await person();
    // The ID token of a person is audienced to the client, typed JWT: never an access token.
    for (const forged of [none, hs256, jku, jkuSameKid, tokens.id_token]) {
      const r = await notForwarded(() => get('/app/p/profile', forged));
      assertRefusal(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    }
    // The genuine person's access token passes the same policy, so the refusals above are the forgeries'.
    assert.equal((await get('/app/p/profile', tokens.access_token)).statusCode, 200);
  });

  test('an expired access token is refused with 401 invalid_token', async () => {
    const token = await serviceToken();
    assert.equal((await get('/app/p/api/items', token)).statusCode, 200);
    t.clock.advance(t.config.tokens.access_token_ttl_seconds);
    try {
      const r = await notForwarded(() => get('/app/p/api/items', token));
      assertRefusal(r, 401, 'invalid_token', 'The access token is invalid, expired or revoked');
    } finally {
      t.clock.advance(-t.config.tokens.access_token_ttl_seconds);
    }
  });
});
