import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

describe('POST /oauth/token with lifetimes from configuration', async () => {
  const tokens = {
    access_token_ttl_seconds: 300,
    id_token_ttl_seconds: 120,
    refresh_token_idle_ttl_seconds: 3600,
    refresh_token_absolute_ttl_seconds: 7200,
    refresh_token_grace_seconds: 0,
  };
  const t = await startTestApp({ config: makeConfig({ tokens }) });
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const sub = await makeIdentity(t.sql);

  /** Signs in now (a fresh session, so auth_time is now) and exchanges the code. */
  const start = async () => {
    const { cookie } = await makeSession(t, sub);
    return userTokens(t, { client, secret, cookie });
  };
  const refresh = (token: string) => refreshTokens(t, client, secret, token);
  const claims = (jwt: string) =>
    JSON.parse(Buffer.from(jwt.split('.')[1] as string, 'base64url').toString()) as { iat: number; exp: number };
  const expired = 'The refresh token has expired';

  test('expires_in and the exp of access and ID tokens follow the configured lifetimes', async () => {
    const r = await start();
    assert.equal(r.expires_in, 300);
    const access = claims(r.access_token);
    assert.equal(access.exp - access.iat, 300);
    assert.equal(access.iat, Math.floor(t.clock.now().getTime() / 1000));
    const id = claims(r.id_token);
    assert.equal(id.exp - id.iat, 120);
  });

  test('a refresh token unused for the idle lifetime expires with invalid_grant', async () => {
    const { refresh_token } = await start();
    t.clock.advance(3599);
    const kept = await refresh(refresh_token);
    assert.equal(kept.status, 200, 'used just inside the idle window');
    t.clock.advance(3601);
    assertEnvelope(await refresh(kept.json.refresh_token as string), 400, 'invalid_grant', expired);
  });

  test('a refresh token family ends at the absolute lifetime from sign-in, however often it is used', async () => {
    let token = (await start()).refresh_token;
    for (let i = 0; i < 3; i++) {
      t.clock.advance(2000);
      const r = await refresh(token);
      assert.equal(r.status, 200, `rotation ${i + 1} at ${(i + 1) * 2000} s`);
      token = r.json.refresh_token as string;
    }
    t.clock.advance(1201);
    assertEnvelope(await refresh(token), 400, 'invalid_grant', expired);
  });

  test('with a grace window of 0, an immediate retry of a rotated token revokes the family', async () => {
    const { refresh_token } = await start();
    const rotated = await refresh(refresh_token);
    assert.equal(rotated.status, 200);
    assertEnvelope(
      await refresh(refresh_token),
      400,
      'invalid_grant',
      'The refresh token was already used; its whole token family is revoked',
    );
    assertEnvelope(
      await refresh(rotated.json.refresh_token as string),
      400,
      'invalid_grant',
      'The refresh token has been revoked',
    );
  });
});

describe('the refresh grace window at the absolute lifetime', async () => {
  const t = await startTestApp({
    config: makeConfig({
      tokens: {
        refresh_token_idle_ttl_seconds: 3600,
        refresh_token_absolute_ttl_seconds: 7200,
        refresh_token_grace_seconds: 5,
      },
    }),
  });
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));

  test('a retry inside the grace window gets nothing once the family has reached its absolute lifetime', async () => {
    const { refresh_token } = await userTokens(t, { client, secret, cookie });
    t.clock.advance(3598);
    const middle = await refreshTokens(t, client, secret, refresh_token);
    assert.equal(middle.status, 200);
    t.clock.advance(3598);
    const last = await refreshTokens(t, client, secret, middle.json.refresh_token as string);
    assert.equal(last.status, 200, 'rotated 4 s before the absolute lifetime ends');
    const retry = await refreshTokens(t, client, secret, middle.json.refresh_token as string);
    assert.equal(
      retry.json.refresh_token,
      last.json.refresh_token,
      'inside the window and the lifetime: same successor',
    );
    t.clock.advance(4);
    // Still inside the 5 s window since the rotation, but past 7200 s from sign-in.
    const late = await refreshTokens(t, client, secret, middle.json.refresh_token as string);
    assertEnvelope(late, 400, 'invalid_grant', 'The refresh token has expired');
  });
});
