// OpenID Connect Back-Channel Logout 1.0: a sign-out (POST /auth/logout) and an owner's "sign out everywhere" queue a
// logout token for each client with a grant from the session; the delivery worker POSTs it to a listening test client,
// which verifies it with jose against the published JWKS. A client that is down gets it on a retry.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { adminCaller } from '../helpers/admin-api.ts';
import { backchannelWorker } from '../helpers/backchannel-worker.ts';
import { makeAdmin, makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { userTokens } from '../helpers/oauth-flow.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** The relying party's back-channel endpoint: answers each POST with the next status (200 once they run out). */
async function relyingParty(statuses: number[] = []) {
  const received: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      assert.equal(request.headers['content-type'], 'application/x-www-form-urlencoded');
      received.push(new URLSearchParams(body).get('logout_token') ?? '');
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel`, received };
}

describe('back-channel logout', async () => {
  const t = await startListeningIssuer();
  const jwks = createRemoteJWKSet(new URL(`${t.issuer}/.well-known/jwks.json`));
  const worker = backchannelWorker(t);

  const verify = async (token: string, clientId: string) => {
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: t.issuer,
      audience: clientId,
      typ: 'logout+jwt',
      currentDate: t.clock.now(),
    });
    return { payload, protectedHeader };
  };

  test('a sign-out sends each client with a grant from the session a valid logout token', async () => {
    const rp = await relyingParty();
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, { backchannelLogoutUri: rp.url });
    const { client: silent, secret: silentSecret } = await makeClient(t.sql, t.secrets.clientSecret);
    const sub = await makeIdentity(t.sql);
    const { cookie, session } = await makeSession(t, sub);
    await userTokens(t, { client, secret, cookie });
    await userTokens(t, { client: silent, secret: silentSecret, cookie });

    const signedOut = await adminCaller(t, cookie, t.issuer)('POST', '/auth/logout', {});
    assert.equal(signedOut.status, 204, 'the sign-out does not wait for the client');
    assert.equal(rp.received.length, 0, 'nothing is sent before the worker runs');
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });

    assert.equal(rp.received.length, 1);
    const { payload, protectedHeader } = await verify(rp.received[0] as string, client.id);
    assert.equal(protectedHeader.alg, 'RS256');
    assert.equal(payload.sub, sub);
    assert.equal(payload.sid, session.id);
    assert.deepEqual(payload.events, { [EVENT]: {} });
    assert.equal(typeof payload.jti, 'string');
    assert.equal('nonce' in payload, false);
    assert.ok((payload.exp as number) - (payload.iat as number) <= 120);
  });

  test("an owner's sign-out-everywhere reaches the client, after a retry when it was down", async () => {
    const rp = await relyingParty([503]);
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, { backchannelLogoutUri: rp.url });
    const sub = await makeIdentity(t.sql);
    const { cookie, session } = await makeSession(t, sub);
    await userTokens(t, { client, secret, cookie });
    const admin = await makeAdmin(t);
    const revoked = await adminCaller(t, admin.cookie, t.issuer)(
      'POST',
      `/admin/identities/${sub}/sessions/revoke`,
      {},
    );
    assert.equal(revoked.status, 200, JSON.stringify(revoked.json));

    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 0, retried: 1, dead: 0 });
    t.clock.advance(3600);
    assert.deepEqual(await worker.runOnce(), { claimed: 1, sent: 1, retried: 0, dead: 0 });
    assert.equal(rp.received.length, 2);
    // Signed at each attempt: the retry's token is fresh, not the first one resent.
    assert.notEqual(rp.received[0], rp.received[1]);
    const { payload } = await verify(rp.received[1] as string, client.id);
    assert.equal(payload.sub, sub);
    assert.equal(payload.sid, session.id);
  });

  test('discovery says back-channel logout with sid is supported', async () => {
    const metadata = (await (await fetch(`${t.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    assert.equal(metadata.backchannel_logout_supported, true);
    assert.equal(metadata.backchannel_logout_session_supported, true);
  });
});
