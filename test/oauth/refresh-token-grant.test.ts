import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { randomToken, tokenHash } from '../../src/crypto/primitives.ts';
import { CACHE_SECONDS } from '../../src/oauth/client-directory.ts';
import { revokeIdentityGrants } from '../../src/oauth/grant-store.ts';
import { atHash } from '../../src/oauth/tokens.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

describe('POST /oauth/token grant_type=refresh_token', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));

  const start = async () => (await userTokens(t, { client, secret, cookie })).refresh_token;
  const refresh = (token: string) => refreshTokens(t, client, secret, token);
  /** The token_hash a token's row has. */
  const stored = (token: string) => tokenHash(token);

  // A rotated token presented again is a replay that revokes the family, newest token included: after the grace
  // window, and within it too once its successor was used (the client has moved on; only a thief is left).
  for (const [when, seconds] of [
    ['after the grace window', 6],
    ['within the grace window once the successor was used', 1],
  ] as const)
    test(`rotates on every use; replay ${when} revokes the family, newest token included`, async () => {
      const first = await start();
      const second = await refresh(first);
      assert.equal(second.status, 200);
      assert.notEqual(second.json.refresh_token, first);
      const third = await refresh(second.json.refresh_token as string);
      assert.equal(third.status, 200);
      t.clock.advance(seconds);
      assertEnvelope(
        await refresh(first),
        400,
        'invalid_grant',
        'The refresh token was already used; its whole token family is revoked',
      );
      assertEnvelope(
        await refresh(third.json.refresh_token as string),
        400,
        'invalid_grant',
        'The refresh token has been revoked',
      );
    });

  test('concurrent refresh of one token: one rotation, the parallel retry gets the same successor', async () => {
    const token = await start();
    const results = await Promise.all(Array.from({ length: 4 }, () => refresh(token)));
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(new Set(results.map((r) => r.json.refresh_token)).size, 1);
    const [live] = await t.sql`
      select count(*)::int as n from oauth_refresh_tokens
      where rotated_at is null and grant_id = (select grant_id from oauth_refresh_tokens where token_hash = ${stored(token)})`;
    assert.equal(live?.n, 1);
  });

  test('revoking an identity’s grants (for the identity module) stops its refresh tokens', async () => {
    const other = await makeIdentity(t.sql);
    const { cookie: otherCookie } = await makeSession(t, other);
    const { refresh_token } = await userTokens(t, { client, secret, cookie: otherCookie });
    assert.equal((await revokeIdentityGrants(t.sql, other, t.clock.now())).count, 1);
    assertEnvelope(await refresh(refresh_token), 400, 'invalid_grant', 'The refresh token has been revoked');
  });

  test('the refresh of an openid grant returns a new ID token: the sign-in’s claims and nonce, a new iat and at_hash', async () => {
    const signedIn = await userTokens(t, { client, secret, cookie });
    const first = decodeJwt(signedIn.id_token);
    t.clock.advance(3);
    const refreshed = await refresh(signedIn.refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    const claims = decodeJwt(refreshed.json.id_token as string);
    for (const name of ['iss', 'sub', 'aud', 'azp', 'auth_time', 'acr', 'amr', 'sid'])
      assert.deepEqual(claims[name], first[name], name);
    // The nonce of the authorization request (authorizeUrl sends n-456), kept on the grant.
    assert.equal(first.nonce, 'n-456');
    assert.equal(claims.nonce, 'n-456');
    assert.equal(claims.iat, (first.iat as number) + 3);
    assert.equal((claims.exp as number) - (claims.iat as number), (first.exp as number) - (first.iat as number));
    assert.equal(claims.at_hash, atHash(refreshed.json.access_token as string));
    // A retry within the grace window gets the same successor and an ID token of the same sign-in too.
    const retried = await refresh(signedIn.refresh_token);
    assert.equal(retried.json.refresh_token, refreshed.json.refresh_token);
    assert.equal(decodeJwt(retried.json.id_token as string).sub, first.sub);
  });

  test('a grant without openid refreshes without an ID token', async () => {
    const { refresh_token, id_token } = await userTokens(t, {
      client,
      secret,
      cookie,
      scope: 'profile offline_access',
    });
    assert.equal(id_token, undefined);
    const refreshed = await refresh(refresh_token);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
    assert.equal(refreshed.json.scope, 'profile offline_access');
    assert.equal(refreshed.json.id_token, undefined);
    assert.equal(typeof refreshed.json.access_token, 'string');
  });

  test('a client whose offline_access was taken away can no longer refresh', async () => {
    const { client: app, secret: appSecret } = await makeClient(t.sql, t.secrets.clientSecret);
    const { refresh_token } = await userTokens(t, { client: app, secret: appSecret, cookie });
    await t.sql`update oauth_clients set scopes = array_remove(scopes, 'offline_access') where id = ${app.id}`;
    // Other nodes see client changes within the client directory's cache time.
    t.clock.advance(CACHE_SECONDS);
    assertEnvelope(
      await refreshTokens(t, app, appSecret, refresh_token),
      400,
      'unauthorized_client',
      'The client is no longer allowed refresh tokens (offline_access)',
    );
  });

  test('a scope taken away from the client leaves its grants at the next refresh', async () => {
    const { client: app, secret: appSecret } = await makeClient(t.sql, t.secrets.clientSecret);
    const { refresh_token } = await userTokens(t, { client: app, secret: appSecret, cookie });
    await t.sql`update oauth_clients set scopes = array_remove(scopes, 'email') where id = ${app.id}`;
    t.clock.advance(CACHE_SECONDS);
    const refreshed = await refreshTokens(t, app, appSecret, refresh_token);
    assert.equal(refreshed.status, 200);
    assert.equal(refreshed.json.scope, 'openid profile offline_access');
    assert.equal(decodeJwt(refreshed.json.access_token as string).scope, 'openid profile offline_access');
    const claims = await t.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${refreshed.json.access_token}` },
    });
    assert.equal(claims.statusCode, 200);
    assert.equal(claims.json().email, undefined, 'userinfo no longer shows the email claim');
    // The grant itself is narrowed: the next refresh, and introspection of the refresh token, say the same.
    const [grant] = await t.sql`select g.scope from oauth_grants g join oauth_refresh_tokens r on r.grant_id = g.id
      where r.token_hash = ${stored(refreshed.json.refresh_token as string)}`;
    assert.equal(grant?.scope, 'openid profile offline_access');
    const introspected = await postForm(t, '/oauth/introspect', {
      client_id: app.id,
      client_secret: appSecret as string,
      token: refreshed.json.refresh_token as string,
    });
    assert.equal(introspected.json.active, true);
    assert.equal(introspected.json.scope, 'openid profile offline_access');
    const again = await refreshTokens(t, app, appSecret, refreshed.json.refresh_token as string);
    assert.equal(again.json.scope, 'openid profile offline_access');
  });

  describe('scope (RFC 6749 §6)', () => {
    const FULL = 'openid profile email offline_access';
    const refreshWith = (token: string, scope: string) =>
      postForm(t, '/oauth/token', {
        grant_type: 'refresh_token',
        client_id: client.id,
        client_secret: secret as string,
        refresh_token: token,
        scope,
      });
    const grantScope = async (refreshToken: string) => {
      const [row] = await t.sql`select g.scope from oauth_grants g join oauth_refresh_tokens r on r.grant_id = g.id
        where r.token_hash = ${stored(refreshToken)}`;
      return row?.scope;
    };
    const userinfo = (accessToken: string) =>
      t.app.inject({ method: 'GET', url: '/oauth/userinfo', headers: { authorization: `Bearer ${accessToken}` } });

    for (const [name, scope, description] of [
      ['a scope the grant lacks', 'openid email', 'scope email is not part of the grant'],
      ['a scope the client was never allowed', 'openid payroll:write', 'scope payroll:write is not part of the grant'],
      ['a malformed scope', 'openid "quoted"', 'scope is malformed'],
    ] as const)
      test(`asking for ${name} is refused with invalid_scope and leaves the refresh token usable`, async () => {
        const { refresh_token } = await userTokens(t, { client, secret, cookie, scope: 'openid offline_access' });
        assertEnvelope(await refreshWith(refresh_token, scope), 400, 'invalid_scope', description);
        // Nothing was rotated: the presented token refreshes, with the grant's scope, as if nothing had happened.
        const [row] =
          await t.sql`select rotated_at from oauth_refresh_tokens where token_hash = ${stored(refresh_token)}`;
        assert.equal(row?.rotated_at, null);
        t.clock.advance(10);
        const refreshed = await refresh(refresh_token);
        assert.equal(refreshed.status, 200, JSON.stringify(refreshed.json));
        assert.equal(refreshed.json.scope, 'openid offline_access');
      });

    test('a narrower scope without openid gets an access token with only it and no ID token', async () => {
      const { refresh_token } = await userTokens(t, { client, secret, cookie });
      const narrowed = await refreshWith(refresh_token, 'offline_access profile');
      assert.equal(narrowed.status, 200, JSON.stringify(narrowed.json));
      // In the grant's order, whatever order was asked for.
      assert.equal(narrowed.json.scope, 'profile offline_access');
      assert.equal(decodeJwt(narrowed.json.access_token as string).scope, 'profile offline_access');
      assert.equal(narrowed.json.id_token, undefined);
      assert.equal(typeof narrowed.json.refresh_token, 'string', 'the grant keeps refreshing');
      const denied = await userinfo(narrowed.json.access_token as string);
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().error, 'insufficient_scope');
      assert.equal(await grantScope(narrowed.json.refresh_token as string), FULL);
      // A resource server that introspects sees the same: the access token's narrower scope, the grant's full one.
      const introspect = (token: string) =>
        postForm(t, '/oauth/introspect', { client_id: client.id, client_secret: secret as string, token });
      assert.equal((await introspect(narrowed.json.access_token as string)).json.scope, 'profile offline_access');
      assert.equal((await introspect(narrowed.json.refresh_token as string)).json.scope, FULL);
    });

    test('a narrower scope with openid gets an ID token, and the next refresh without scope gets the full scope', async () => {
      const signedIn = await userTokens(t, { client, secret, cookie });
      const narrowed = await refreshWith(signedIn.refresh_token, 'email openid');
      assert.equal(narrowed.status, 200, JSON.stringify(narrowed.json));
      assert.equal(narrowed.json.scope, 'openid email');
      assert.equal(decodeJwt(narrowed.json.access_token as string).scope, 'openid email');
      const idToken = decodeJwt(narrowed.json.id_token as string);
      assert.equal(idToken.sub, decodeJwt(signedIn.id_token).sub);
      assert.equal(idToken.at_hash, atHash(narrowed.json.access_token as string));
      const claims = (await userinfo(narrowed.json.access_token as string)).json();
      assert.equal(typeof claims.email, 'string');
      assert.equal(claims.name, undefined, 'profile was not asked for');
      const full = await refresh(narrowed.json.refresh_token as string);
      assert.equal(full.status, 200, JSON.stringify(full.json));
      assert.equal(full.json.scope, FULL);
      assert.equal(decodeJwt(full.json.access_token as string).scope, FULL);
      assert.equal(typeof full.json.id_token, 'string');
      // §3.1: a parameter sent without a value counts as omitted, so an empty scope is the grant's too.
      const empty = await refreshWith(full.json.refresh_token as string, '');
      assert.equal(empty.status, 200, JSON.stringify(empty.json));
      assert.equal(empty.json.scope, FULL);
      assert.equal(await grantScope(empty.json.refresh_token as string), FULL);
    });
  });

  test('rejects an unknown refresh token with invalid_grant', async () => {
    assertEnvelope(await refresh('never-issued-refresh-token'), 400, 'invalid_grant', 'The refresh token is invalid');
  });

  test('refuses a refresh token presented by another client without revoking it', async () => {
    const token = await start();
    const { client: other, secret: otherSecret } = await makeClient(t.sql, t.secrets.clientSecret);
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: other.id,
      client_secret: otherSecret as string,
      refresh_token: token,
    });
    assertEnvelope(r, 400, 'invalid_grant', 'The refresh token is invalid');
    assert.equal((await refresh(token)).status, 200);
  });

  // Last: a test here moves the clock by a month, which ends the shared session the tests above use.
  describe('rotated tokens leave the table, and are still known as replays (refresh-token-value.ts)', () => {
    const GRACE_AND_SKEW = 5 + 60 + 1;
    const familyRows = async (token: string) =>
      (
        await t.sql`select count(*)::int as n from oauth_refresh_tokens
          where grant_id = (select grant_id from oauth_refresh_tokens where token_hash = ${stored(token)})`
      )[0]?.n as number;
    const grantOf = (token: string) => token.split('~')[1] as string;
    const rowsOf = async (token: string) =>
      (await t.sql`select 1 from oauth_refresh_tokens where token_hash = ${stored(token)}`).length;
    const refusedAsReplay = async (token: string) =>
      assertEnvelope(
        await refresh(token),
        400,
        'invalid_grant',
        'The refresh token was already used; its whole token family is revoked',
      );
    const revokedAt = async (grantId: string) =>
      (await t.sql`select revoked_at from oauth_grants where id = ${grantId}`)[0]?.revoked_at as Date | null;
    /**
     * A family of its own sign-in (the clock moves by months here), rotated `times` times a grace window and a minute
     * apart: every token it had, oldest first.
     */
    const rotations = async (times: number) => {
      const session = await makeSession(t, await makeIdentity(t.sql));
      const tokens = [(await userTokens(t, { client, secret, cookie: session.cookie })).refresh_token];
      for (let i = 0; i < times; i += 1) {
        t.clock.advance(GRACE_AND_SKEW);
        const next = await refresh(tokens.at(-1) as string);
        assert.equal(next.status, 200, JSON.stringify(next.json));
        tokens.push(next.json.refresh_token as string);
      }
      return tokens;
    };

    test('a family rotated twenty times keeps two rows: the live token and the one rotated last', async () => {
      const tokens = await rotations(20);
      assert.equal(await familyRows(tokens.at(-1) as string), 2);
      const [live] =
        await t.sql`select names_grant from oauth_refresh_tokens where token_hash = ${stored(tokens.at(-1) as string)}`;
      assert.equal(live?.names_grant, true);
    });

    test('a token whose row is gone is a replay: the family is revoked, audited, the newest token with it', async () => {
      const tokens = await rotations(3);
      const [oldest, , , newest] = tokens as [string, string, string, string];
      assert.equal(await rowsOf(oldest), 0);
      await refusedAsReplay(oldest);
      assertEnvelope(await refresh(newest), 400, 'invalid_grant', 'The refresh token has been revoked');
      const events = await t.sql`
        select actor, details->>'reason' as reason from audit_events
        where event = 'oauth.grant_revoked' and subject = ${grantOf(newest)}`;
      assert.deepEqual(
        events.map((e) => ({ ...e })),
        [{ actor: client.id, reason: 'refresh_token_replay' }],
      );
    });

    test('a forged token naming a live family is invalid and changes nothing', async () => {
      const [spent, live] = (await rotations(2)).slice(-2) as [string, string];
      const [secret, grantId, mac] = spent.split('~') as [string, string, string];
      const flipped = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
      for (const forged of [
        `${secret}~${grantId}~${flipped}`,
        `${secret.slice(0, -1)}x~${grantId}~${mac}`,
        `${secret}~grt_${'A'.repeat(22)}~${mac}`,
        `${secret}~${grantId}`,
        `${secret}~${grantId}~${mac}~${mac}`,
        `~${grantId}~${mac}`,
        secret,
        `${spent}${'A'.repeat(200)}`,
      ])
        assertEnvelope(await refresh(forged), 400, 'invalid_grant', 'The refresh token is invalid');
      assert.equal(await revokedAt(grantId), null);
      assert.equal((await refresh(live)).status, 200);
    });

    test('a token whose MAC no longer verifies (the signing secret replaced) still rotates while its row is there', async () => {
      const [live] = (await rotations(0)) as [string];
      const [secret, grantId] = live.split('~') as [string, string];
      const underOldKey = `${secret}~${grantId}~${'A'.repeat(22)}`;
      await t.sql`update oauth_refresh_tokens set token_hash = ${tokenHash(underOldKey)} where token_hash = ${stored(live)}`;
      const next = await refresh(underOldKey);
      assert.equal(next.status, 200, JSON.stringify(next.json));
      assert.equal(grantOf(next.json.refresh_token as string), grantId);
      // Its row remains, rotated: presented again after the grace window, it is a replay like any other.
      t.clock.advance(6);
      await refusedAsReplay(underOldKey);
      assert.ok(await revokedAt(grantId));
    });

    test('a spent token presented by another client is invalid and revokes nothing', async () => {
      const [spent, live] = (await rotations(2)).slice(-2) as [string, string];
      const { client: other, secret: otherSecret } = await makeClient(t.sql, t.secrets.clientSecret);
      assertEnvelope(
        await refreshTokens(t, other, otherSecret, spent),
        400,
        'invalid_grant',
        'The refresh token is invalid',
      );
      assert.equal(await revokedAt(grantOf(live)), null);
      assert.equal((await refresh(live)).status, 200);
    });

    test('a spent token of a family whose live token expired is refused as expired and revokes nothing', async () => {
      const [oldest, , newest] = (await rotations(2)) as [string, string, string];
      t.clock.advance(t.config.tokens.refresh_token_idle_ttl_seconds + 1);
      assertEnvelope(await refresh(oldest), 400, 'invalid_grant', 'The refresh token has expired');
      assert.equal(await revokedAt(grantOf(newest)), null);
    });

    test('introspection answers inactive for a spent token; revoking one ends its family', async () => {
      const [spent, , live] = (await rotations(2)) as [string, string, string];
      const asClient = { client_id: client.id, client_secret: secret as string };
      const introspect = async (token: string) =>
        (await postForm(t, '/oauth/introspect', { ...asClient, token })).json.active;
      assert.equal(await introspect(spent), false);
      assert.equal(await introspect(live), true);
      assert.equal((await postForm(t, '/oauth/revoke', { ...asClient, token: spent })).status, 200);
      assert.ok(await revokedAt(grantOf(spent)));
      assert.equal(await introspect(live), false);
    });

    test('a token of the earlier format (the secret alone) still rotates, and its row stays to catch its replay', async () => {
      const [first] = (await rotations(0)) as [string];
      const legacy = randomToken();
      const grantId = grantOf(first);
      await t.sql`update oauth_refresh_tokens set token_hash = ${tokenHash(legacy)}, names_grant = false
        where token_hash = ${stored(first)}`;
      let token = legacy;
      for (let i = 0; i < 3; i += 1) {
        t.clock.advance(GRACE_AND_SKEW);
        const next = await refresh(token);
        assert.equal(next.status, 200, JSON.stringify(next.json));
        token = next.json.refresh_token as string;
        assert.equal(grantOf(token), grantId, 'its successors name the grant');
      }
      assert.equal(await rowsOf(legacy), 1);
      await refusedAsReplay(legacy);
    });
  });
});
