// What a node changes it forgets at once (src/db/forget-on-commit.ts): every revocation that ends grants or lists
// an access token as revoked, a profile change and a client's deletion hold on the node that committed them before
// that node hears its own NOTIFY. Each test caches the state first, then holds back the LISTEN connection's
// invalidations, as a slow notification would; each fails if the node waited for the NOTIFY.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { clientKey, grantKey, identityKey, jtiKey } from '../../src/db/token-state-keys.ts';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeAdmin, makeClient, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { clientCredentialsToken, postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);

/** `active` of the token, as its client (or `caller`, a service client provisioned for its audience) is told. */
const introspect = async (token: string, caller = { client, secret: secret as string }) =>
  (await postForm(t, '/oauth/introspect', { client_id: caller.client.id, client_secret: caller.secret, token })).json
    .active;
const post = (url: string, cookie: string) =>
  t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, cookie }, payload: {} });

/** Runs `change` with the node deaf to NOTIFY, once `token` is active and its grant and jti are in the cache. */
const withoutNotifications = (token: string, change: () => Promise<void>, ask = () => introspect(token)) => {
  const { gid, jti, client_id } = decodeJwt(token);
  const subject = gid === undefined ? clientKey(String(client_id)) : grantKey(String(gid));
  return cachedThenDeaf([subject, jtiKey(String(jti))], async () => assert.equal(await ask(), true), change);
};

/** Asks `ask` until `keys` are all cached, then runs `change` with the node deaf to NOTIFY. */
async function cachedThenDeaf(keys: string[], ask: () => Promise<void>, change: () => Promise<void>): Promise<void> {
  const cache = t.services.tokenStates;
  assert.equal(cache.listening, true);
  // A notification arriving during a read keeps that read from being stored: ask again until it is.
  for (let attempt = 0; keys.some((key) => cache.get(key) === undefined); attempt++) {
    assert.ok(attempt < 10, 'the state was never cached');
    await ask();
  }
  const invalidate = cache.invalidate;
  cache.invalidate = () => {};
  try {
    await change();
  } finally {
    cache.invalidate = invalidate;
  }
}

describe('a revocation holds at once on the node that made it, before its NOTIFY', () => {
  test('"sign out other sessions" (account)', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'forget-others@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const fromMine = await userTokens(t, { client, secret, cookie: mine.cookie });
    const fromOther = await userTokens(t, { client, secret, cookie: other.cookie });
    await withoutNotifications(fromOther.access_token, async () => {
      assert.equal(await introspect(fromMine.access_token), true);
      assert.equal((await post('/account/sessions/revoke-others', mine.cookie)).statusCode, 200);
      assert.equal(await introspect(fromOther.access_token), false);
      assert.equal(await introspect(fromMine.access_token), true, "the caller's own session keeps its grant");
    });
  });

  test('ending one session (account)', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'forget-one@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const lost = await makeSession(t, person.sub);
    const fromLost = await userTokens(t, { client, secret, cookie: lost.cookie });
    await withoutNotifications(fromLost.access_token, async () => {
      assert.equal((await post(`/account/sessions/${lost.session.id}/revoke`, mine.cookie)).statusCode, 204);
      assert.equal(await introspect(fromLost.access_token), false);
    });
  });

  test('a replayed refresh token revokes its family, and the family’s access token with it', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'forget-replay@acme-robotics.dev' });
    const { cookie } = await makeSession(t, person.sub);
    const first = await userTokens(t, { client, secret, cookie });
    const rotated = await refreshTokens(t, client, secret, first.refresh_token);
    assert.equal(rotated.status, 200);
    const access = (rotated.json as { access_token: string }).access_token;
    // Past the grace window, presenting the rotated token again is a replay.
    t.clock.advance(t.config.tokens.refresh_token_grace_seconds + 1);
    await withoutNotifications(access, async () => {
      assert.equal((await refreshTokens(t, client, secret, first.refresh_token)).status, 400);
      assert.equal(await introspect(access), false);
    });
  });
});

describe('other changes hold at once on the node that made them, before their NOTIFY', () => {
  test('a new display name is what userinfo says next', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'forget-name@acme-robotics.dev' });
    const { cookie } = await makeSession(t, person.sub);
    const tokens = await userTokens(t, { client, secret, cookie });
    const userinfo = async () => {
      const r = await t.app.inject({
        method: 'GET',
        url: '/oauth/userinfo',
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      assert.equal(r.statusCode, 200, r.body);
      return (r.json() as { name: string }).name;
    };
    const before = await userinfo();
    await cachedThenDeaf(
      [identityKey(person.sub)],
      async () => assert.equal(await userinfo(), before),
      async () => {
        const changed = await t.app.inject({
          method: 'PATCH',
          url: '/account/profile',
          headers: { ...JSON_HEADERS, cookie },
          payload: { display_name: 'Renamed Person' },
        });
        assert.equal(changed.statusCode, 200, changed.body);
        assert.equal(await userinfo(), 'Renamed Person');
      },
    );
  });

  test("a deleted client's tokens are inactive at once", async () => {
    const service = await makeServiceClient(t.sql, t.secrets.clientSecret);
    const issued = await clientCredentialsToken(t, service);
    assert.equal(issued.status, 200, JSON.stringify(issued.json));
    const token = issued.json.access_token as string;
    // The API the token is for asks: the deleted client can no longer authenticate to ask for itself.
    const api = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'service',
      audiences: [service.resource.audience],
      scopes: ['read'],
    });
    const asApi = () => introspect(token, { client: api.client, secret: api.secret as string });
    const admin = adminCaller(t, (await makeAdmin(t)).cookie);
    await withoutNotifications(
      token,
      async () => {
        assert.equal((await admin('DELETE', `/admin/clients/${service.client.id}`)).status, 204);
        assert.equal(await asApi(), false);
      },
      asApi,
    );
  });
});
