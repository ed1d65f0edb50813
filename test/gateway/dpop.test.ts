// The gateway as the resource server of DPoP-bound tokens (RFC 9449 §7): the proof must match the request, the token
// (ath) and the token's key (cnf.jkt); a DPoP-bound token sent as a bearer token is refused before the upstream.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ath, catchUpWithRealTime, DPOP_ALGS, dpopKeys, followRealTime, proof } from '../helpers/dpop.ts';
import { postForm } from '../helpers/oauth-flow.ts';
import { assertRefusal, ISSUER, json, startGatewaySuite } from './suite.ts';

describe('gateway: DPoP-bound access tokens', async () => {
  const { t, service, get, notForwarded } = await startGatewaySuite();
  followRealTime(t.clock);
  const keys = await dpopKeys();
  // The suite's token is asked for before any test: its proof carries the real time, which a slow setup (a loaded
  // machine) may have left the app clock more than the allowed skew behind.
  catchUpWithRealTime(t.clock);
  const path = '/app/p/api/items';
  const r = await postForm(
    t,
    '/oauth/token',
    {
      grant_type: 'client_credentials',
      client_id: service.client.id,
      client_secret: service.secret,
      scope: 'read',
      resource: service.resource.audience,
    },
    { dpop: await proof(keys, { htm: 'POST', htu: `${ISSUER}/oauth/token` }) },
  );
  assert.equal(r.json.token_type, 'DPoP', JSON.stringify(r.json));
  const token = r.json.access_token as string;
  const dpopGet = async (signer = keys, claims: Record<string, unknown> = {}) =>
    get(path, undefined, {
      authorization: `DPoP ${token}`,
      dpop: await proof(signer, { htm: 'GET', htu: `${ISSUER}${path}`, ath: ath(token), ...claims }),
    });

  test('a DPoP-bound token with a proof by its key reaches the upstream', async () => {
    const forwarded = await dpopGet();
    assert.equal(forwarded.statusCode, 200, forwarded.body);
    assert.equal(
      (json(forwarded) as { headers: Record<string, string> }).headers['x-gatehouse-client'],
      service.client.id,
    );
  });

  test('the same token as a bearer token is refused with 401 invalid_token and a DPoP challenge', async () => {
    const refused = await notForwarded(() => get(path, token));
    const description = 'The access token is DPoP-bound: send it with the DPoP scheme and a DPoP proof';
    assertRefusal(refused, 401, 'invalid_token', description);
    assert.equal(
      refused.headers['www-authenticate'],
      `DPoP error="invalid_token", error_description="${description}", algs="${DPOP_ALGS}"`,
    );
  });

  test('a proof from another key is refused with 401 invalid_dpop_proof', async () => {
    const refused = await notForwarded(async () => dpopGet(await dpopKeys()));
    assertRefusal(
      refused,
      401,
      'invalid_dpop_proof',
      'The DPoP proof was signed by another key than the token is bound to',
    );
  });

  test('a proof for another path is refused with 401 invalid_dpop_proof', async () => {
    const refused = await notForwarded(() => dpopGet(keys, { htu: `${ISSUER}/app/p/api/other` }));
    assertRefusal(refused, 401, 'invalid_dpop_proof', `The DPoP proof's htu must be ${ISSUER}${path}`);
  });

  test('a replayed proof is refused with 401 invalid_dpop_proof', async () => {
    const dpop = await proof(keys, { htm: 'GET', htu: `${ISSUER}${path}`, ath: ath(token) });
    const headers = { authorization: `DPoP ${token}`, dpop };
    assert.equal((await get(path, undefined, headers)).statusCode, 200);
    const refused = await notForwarded(() => get(path, undefined, headers));
    assertRefusal(refused, 401, 'invalid_dpop_proof', 'The DPoP proof was already used (jti)');
  });
});
