// What a node revokes it forgets at once (src/oauth/forget-on-commit.ts): every revocation that ends grants or
// lists an access token as revoked holds on the node that committed it before that node hears its own NOTIFY.
// Each test caches the token state first, then holds back the LISTEN connection's invalidations, as a slow
// notification would; each fails if the node waited for the NOTIFY.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { grantKey, jtiKey } from '../../src/oauth/token-state-keys.ts';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);

const introspect = async (token: string) =>
  (await postForm(t, '/oauth/introspect', { client_id: client.id, client_secret: secret as string, token })).json
    .active;
const post = (url: string, cookie: string) =>
  t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, cookie }, payload: {} });

/** Runs `change` with the node deaf to NOTIFY, once `token` is active and its grant and jti are in the cache. */
async function withoutNotifications(token: string, change: () => Promise<void>): Promise<void> {
  const cache = t.services.tokenStates;
  assert.equal(cache.listening, true);
  const { gid, jti } = decodeJwt(token);
  // A notification arriving during a read keeps that read from being stored: ask again until it is.
  for (
    let attempt = 0;
    cache.get(grantKey(String(gid))) === undefined || cache.get(jtiKey(String(jti))) === undefined;
    attempt++
  ) {
    assert.ok(attempt < 10, 'the token state was never cached');
    assert.equal(await introspect(token), true);
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
