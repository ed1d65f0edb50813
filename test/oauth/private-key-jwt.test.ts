// private_key_jwt (RFC 7523 §2.2, OIDC Core §9) with oauth4webapi against a listening Gatehouse: keys registered
// inline or at a jwks_uri (served here by a loopback server), at the token, introspection and revocation endpoints;
// refusals with invalid_client and the whole envelope.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { followRealTime } from '../helpers/dpop.ts';
import { makeClient, makeResource } from '../helpers/oauth-fixtures.ts';
import { assertFetchedEnvelope as envelope, startListeningIssuer } from '../helpers/oauth-server.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A loopback server publishing a JWKS, counting the fetches. */
async function jwksServer(jwks: unknown) {
  let fetches = 0;
  const server = http.createServer((_request, response) => {
    fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`, fetches: () => fetches };
}

describe('private_key_jwt client authentication', async () => {
  const t = await startListeningIssuer();
  followRealTime(t.clock);
  const issuer = new URL(t.issuer);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const resource = await makeResource(t.sql, undefined, ['read']);
  const keys = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const { client: inline } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'service',
    audiences: [resource.audience],
    scopes: ['read'],
    jwks: { keys: [publicJwk] },
  });
  const published = await jwksServer({ keys: [publicJwk] });
  const { client: remote } = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'service',
    audiences: [resource.audience],
    scopes: ['read'],
    jwksUri: published.url,
  });
  const auth = oauth.PrivateKeyJwt(keys.privateKey);
  const params = new URLSearchParams({ scope: 'read', resource: resource.audience });

  const assertion = (claims: Record<string, unknown> = {}, key = keys.privateKey) =>
    new SignJWT({ jti: crypto.randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(inline.id)
      .setSubject(inline.id)
      .setAudience(t.issuer)
      .setIssuedAt()
      .setExpirationTime('60s')
      .sign(key);
  const tokenRequest = (form: Record<string, string>) =>
    fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'read',
        resource: resource.audience,
        client_assertion_type: ASSERTION_TYPE,
        ...form,
      }),
    });

  test('discovery lists private_key_jwt and its algorithms', () => {
    assert.deepEqual(as.token_endpoint_auth_methods_supported, ['none', 'client_secret_post', 'private_key_jwt']);
    assert.deepEqual(as.token_endpoint_auth_signing_alg_values_supported, ['RS256', 'PS256', 'ES256', 'EdDSA']);
  });

  test('a client with inline keys gets a token, introspects it and revokes it with assertions', async () => {
    const client: oauth.Client = { client_id: inline.id };
    const tokens = await oauth.processClientCredentialsResponse(
      as,
      client,
      await oauth.clientCredentialsGrantRequest(as, client, auth, params, insecure),
    );
    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure),
    );
    assert.equal(introspected.active, true);
    assert.equal(introspected.client_id, inline.id);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, tokens.access_token, insecure),
    );
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, auth, tokens.access_token, insecure),
    );
    assert.equal(after.active, false);
  });

  test('a client with a jwks_uri gets a token; the key set is fetched once and kept', async () => {
    const client: oauth.Client = { client_id: remote.id };
    for (let i = 0; i < 2; i += 1) {
      const tokens = await oauth.processClientCredentialsResponse(
        as,
        client,
        await oauth.clientCredentialsGrantRequest(as, client, auth, params, insecure),
      );
      assert.equal(tokens.token_type, 'bearer');
    }
    assert.equal(published.fetches(), 1);
  });

  test('an assertion used twice is refused with invalid_client the second time', async () => {
    const once = await assertion();
    assert.equal((await tokenRequest({ client_id: inline.id, client_assertion: once })).status, 200);
    await envelope(
      await tokenRequest({ client_id: inline.id, client_assertion: once }),
      401,
      'invalid_client',
      'The client assertion was refused: the assertion was already used (jti)',
    );
  });

  test('client_id may be left out: the assertion names the client', async () => {
    assert.equal((await tokenRequest({ client_assertion: await assertion() })).status, 200);
  });

  test('an assertion signed by another key is refused with invalid_client', async () => {
    const other = await generateKeyPair('ES256');
    await envelope(
      await tokenRequest({ client_id: inline.id, client_assertion: await assertion({}, other.privateKey) }),
      401,
      'invalid_client',
      'The client assertion was refused: the assertion did not verify: signature verification failed',
    );
  });

  test('an assertion for another audience, or valid for too long, is refused with invalid_client', async () => {
    const foreign = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(inline.id)
      .setSubject(inline.id)
      .setAudience('https://elsewhere.example.test')
      .setExpirationTime('60s')
      .sign(keys.privateKey);
    await envelope(
      await tokenRequest({ client_id: inline.id, client_assertion: foreign }),
      401,
      'invalid_client',
      'The client assertion was refused: the assertion did not verify: unexpected "aud" claim value',
    );
    const long = await new SignJWT({ jti: crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setIssuer(inline.id)
      .setSubject(inline.id)
      .setAudience(`${t.issuer}/oauth/token`)
      .setExpirationTime('1h')
      .sign(keys.privateKey);
    await envelope(
      await tokenRequest({ client_id: inline.id, client_assertion: long }),
      401,
      'invalid_client',
      'The client assertion was refused: the assertion expires more than 300 s from now',
    );
  });

  test('a secret or another assertion type is refused with invalid_client; HTTP Basic stays refused', async () => {
    await envelope(
      await tokenRequest({ client_id: inline.id, client_assertion: await assertion(), client_secret: 'x' }),
      401,
      'invalid_client',
      'Send client_secret or client_assertion, not both',
    );
    await envelope(
      await tokenRequest({
        client_id: inline.id,
        client_assertion: await assertion(),
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer',
      }),
      401,
      'invalid_client',
      `client_assertion_type must be ${ASSERTION_TYPE}`,
    );
    const basic = await fetch(as.token_endpoint as string, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${inline.id}:x`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    assert.equal(basic.status, 401);
    assert.equal(((await basic.json()) as { error: string }).error, 'invalid_client');
  });
});
