// docs/integrations.md "Resource server with jose": the quoted verifier accepts Gatehouse access tokens meant for the
// API and refuses the rest (RFC 9068 §4: issuer, exact audience, typ at+jwt, RS256; SPEC.md Authentication 8: scope).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { clientCredentialsToken, userTokens } from '../helpers/oauth-flow.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';
import { gatehouseAccessTokens } from './snippets/jose-resource-server.ts';

describe('a jose resource server against Gatehouse', async () => {
  const t = await startListeningIssuer();
  const service = await makeServiceClient(t.sql, t.secrets.clientSecret, ['read', 'write']);
  const verify = gatehouseAccessTokens(t.issuer, service.resource.audience);
  const bearer = async (scope: string) => {
    const r = await clientCredentialsToken(t, service, scope);
    assert.equal(r.status, 200, JSON.stringify(r.json));
    return `Bearer ${r.json.access_token as string}`;
  };

  test('a token for the API’s audience with the required scope verifies against the JWKS', async () => {
    const claims = await verify(await bearer('read write'), 'write');
    assert.equal(claims.iss, t.issuer);
    assert.equal(claims.aud, service.resource.audience);
    assert.equal(claims.sub, service.client.id);
    assert.equal(claims.scope, 'read write');
  });

  test('a token without the required scope is refused', async () => {
    await assert.rejects(verify(await bearer('read'), 'write'), { message: 'scope write is required' });
  });

  test('a user’s access token (audience: the issuer) is refused by the API', async () => {
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
    const { cookie } = await makeSession(t, await makeIdentity(t.sql));
    const tokens = await userTokens(t, { client, secret, cookie, scope: 'openid' });
    await assert.rejects(verify(`Bearer ${tokens.access_token}`, 'read'), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'aud',
    });
    // An ID token is not an access token, even for a verifier expecting its audience (RFC 9068 §4: typ).
    const forClient = gatehouseAccessTokens(t.issuer, client.id);
    await assert.rejects(forClient(`Bearer ${tokens.id_token}`, 'openid'), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'typ',
    });
  });

  test('a token with a forged signature or from another issuer is refused', async () => {
    const [header, payload, signature] = (await bearer('read')).slice('Bearer '.length).split('.') as [
      string,
      string,
      string,
    ];
    const forged = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    await assert.rejects(verify(`Bearer ${header}.${payload}.${forged}`, 'read'), {
      code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
    });
    // The same keys under another issuer name: the `iss` check alone refuses it.
    const elsewhere = gatehouseAccessTokens(t.issuer.replace('127.0.0.1', 'localhost'), service.resource.audience);
    await assert.rejects(elsewhere(await bearer('read'), 'read'), {
      code: 'ERR_JWT_CLAIM_VALIDATION_FAILED',
      claim: 'iss',
    });
    await assert.rejects(verify(undefined, 'read'), { message: 'no bearer token' });
  });
});
