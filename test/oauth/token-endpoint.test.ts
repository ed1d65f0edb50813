import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tokenHash } from '../../src/crypto/primitives.ts';
import { runHousekeeping } from '../../src/housekeeping.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { revokeIdentityGrants } from '../../src/oauth/grant-store.ts';
import { grantIdOfCode } from '../../src/oauth/ids.ts';
import { revokeIdentitySessions } from '../../src/session/store.ts';
import { adminCaller } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { untilBlocked } from '../helpers/lock-waits.ts';
import { makeAdmin, makeClient, makeIdentity, makeServiceClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, obtainCode, pkcePair, postForm } from '../helpers/oauth-flow.ts';

const CODE_REUSED = 'The authorization code was already used; every token issued from it is revoked';

describe('POST /oauth/token grant_type=authorization_code', async () => {
  const t = await startTestApp();
  const key = t.secrets.clientSecret;
  const { client, secret } = await makeClient(t.sql, key);
  const { client: other, secret: otherSecret } = await makeClient(t.sql, key);
  const { client: spa } = await makeClient(t.sql, key, { kind: 'browser' });
  const sub = await makeIdentity(t.sql);
  const { cookie } = await makeSession(t, sub);
  const redirectUri = 'https://app.example.test/callback';

  const exchange = (code: string, verifier: string, overrides: Record<string, string> = {}) =>
    postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      ...overrides,
    });

  test('exchanges a code for access, ID and refresh tokens, never cached', async () => {
    const { verifier, challenge } = pkcePair();
    const r = await exchange(await obtainCode(t, { client, cookie, challenge }), verifier);
    assert.equal(r.status, 200);
    assert.equal(r.headers['cache-control'], 'no-store');
    assert.equal(r.headers.pragma, 'no-cache', 'RFC 6749 §5.1');
    assert.deepEqual(Object.keys(r.json).sort(), [
      'access_token',
      'expires_in',
      'id_token',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    assert.equal(r.json.token_type, 'Bearer');
    assert.equal(r.json.expires_in, 600);
    assert.equal(r.json.scope, 'openid profile email offline_access');
  });

  test('a public client exchanges without a secret and gets no refresh token without offline_access', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client: spa, cookie, challenge, scope: 'openid' });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: spa.id,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.refresh_token, undefined);
    assert.ok(r.json.id_token);
  });

  test('rejects a wrong code_verifier with invalid_grant and leaves the code usable', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const wrong = await exchange(code, pkcePair().verifier);
    assertEnvelope(wrong, 400, 'invalid_grant', 'code_verifier does not match the code_challenge');
    assert.equal((await exchange(code, verifier)).status, 200);
  });

  test('rejects a missing code_verifier with invalid_request', async () => {
    const { challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: client.id,
      client_secret: secret as string,
      code,
      redirect_uri: redirectUri,
    });
    assertEnvelope(r, 400, 'invalid_request', 'code_verifier is required');
  });

  test('rejects a reused code with invalid_grant and revokes every token issued from it', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    const again = await exchange(code, verifier);
    assertEnvelope(again, 400, 'invalid_grant', CODE_REUSED);
    const introspected = await postForm(t, '/oauth/introspect', {
      client_id: client.id,
      client_secret: secret as string,
      token: first.json.access_token as string,
    });
    assert.deepEqual(introspected.json, { active: false });
    const refreshed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.id,
      client_secret: secret as string,
      refresh_token: first.json.refresh_token as string,
    });
    assertEnvelope(refreshed, 400, 'invalid_grant', 'The refresh token has been revoked');
    const [audit] = await t.sql`select event, details from audit_events where event = 'oauth.grant_revoked'`;
    assert.deepEqual(audit?.details, { reason: 'authorization_code_reuse' });
  });

  test('a code issued with a random grant id (the previous release) makes its grant under the derived one, which its replay revokes', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    await t.sql`update oauth_authorization_codes set grant_id = 'grt_randomFromAnEarlierRelease'
      where code_hash = ${tokenHash(code)}`;
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    const refreshToken = first.json.refresh_token as string;
    const grantId = refreshToken.split('~')[1] as string;
    assert.equal(grantId, grantIdOfCode(code));
    const [random] = await t.sql`select id from oauth_grants where id = 'grt_randomFromAnEarlierRelease'`;
    assert.equal(random, undefined, 'no grant under the id the row held');
    assertEnvelope(await exchange(code, verifier), 400, 'invalid_grant', CODE_REUSED);
    const [grant] = await t.sql`select revoked_at from oauth_grants where id = ${grantId}`;
    assert.ok(grant?.revoked_at, 'the replay revoked the grant the exchange made');
  });

  test('an exchange deletes the code’s row: nothing of an exchanged code is left to purge', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    assert.equal((await exchange(code, verifier)).status, 200);
    const rows = await t.sql`select 1 from oauth_authorization_codes where code_hash = ${tokenHash(code)}`;
    assert.equal(rows.length, 0);
    const [grant] = await t.sql`select revoked_at from oauth_grants where id = ${grantIdOfCode(code)}`;
    assert.equal(grant?.revoked_at, null, 'the grant the code names is live');
  });

  test('a code an earlier release marked used (its row kept, a random grant id) still revokes that grant on replay', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const earlier = 'grt_exchangedByAnEarlierRelease';
    await t.sql`insert into oauth_grants (id, client_id, identity_id, session_id, scope, auth_time, acr, amr,
                                          created_at, expires_at)
                select ${earlier}, client_id, identity_id, session_id, scope, auth_time, acr, amr, now(),
                       now() + interval '30 days'
                from oauth_authorization_codes where code_hash = ${tokenHash(code)}`;
    await t.sql`update oauth_authorization_codes set grant_id = ${earlier}, used_at = now()
                where code_hash = ${tokenHash(code)}`;
    assertEnvelope(await exchange(code, verifier), 400, 'invalid_grant', CODE_REUSED);
    const [grant] = await t.sql`select revoked_at from oauth_grants where id = ${earlier}`;
    assert.ok(grant?.revoked_at);
    const audits =
      await t.sql`select details from audit_events where event = 'oauth.grant_revoked' and subject = ${earlier}`;
    assert.deepEqual(
      audits.map((a) => a.details),
      [{ reason: 'authorization_code_reuse' }],
    );
    const [derived] = await t.sql`select id from oauth_grants where id = ${grantIdOfCode(code)}`;
    assert.equal(derived, undefined, 'the replay made no grant');
  });

  test('rejects an expired code with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    t.clock.advance(61);
    assertEnvelope(await exchange(code, verifier), 400, 'invalid_grant', 'The authorization code has expired');
  });

  test('rejects a code issued to another client with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier, { client_id: other.id, client_secret: otherSecret as string });
    assertEnvelope(r, 400, 'invalid_grant', 'The authorization code was issued to another client');
  });

  test('rejects a redirect_uri other than the authorization request’s with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier, { redirect_uri: 'https://app.example.test/other' });
    assertEnvelope(r, 400, 'invalid_grant', 'redirect_uri does not match the one in the authorization request');
  });

  test('concurrent double exchange of one code: exactly one wins, and the losers revoke the winner’s tokens', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const results = await Promise.all(Array.from({ length: 6 }, () => exchange(code, verifier)));
    const winners = results.filter((r) => r.status === 200);
    assert.equal(winners.length, 1);
    // A loser finds the code used and takes the reuse path (RFC 6749 §4.1.2): it cannot tell a race from a replay.
    for (const r of results.filter((r) => r.status !== 200)) assertEnvelope(r, 400, 'invalid_grant', CODE_REUSED);
    const winner = winners[0]?.json as { refresh_token: string };
    const refreshed = await postForm(t, '/oauth/token', {
      grant_type: 'refresh_token',
      client_id: client.id,
      client_secret: secret as string,
      refresh_token: winner.refresh_token,
    });
    assertEnvelope(refreshed, 400, 'invalid_grant', 'The refresh token has been revoked');
    const audit = await t.sql`
      select actor, details from audit_events where event = 'oauth.grant_revoked' and subject = ${grantIdOfCode(code)}`;
    assert.deepEqual(
      audit.map((a) => ({ actor: a.actor, details: a.details })),
      [{ actor: client.id, details: { reason: 'authorization_code_reuse' } }],
    );
  });

  test('refuses a code whose sign-in ended before the exchange (sign-out, suspension, sign out everywhere)', async () => {
    const admin = adminCaller(t, (await makeAdmin(t)).cookie);
    const endings: [string, (person: Sub, personCookie: string) => Promise<number>][] = [
      ['sign-out', async (_person, personCookie) => (await admin('POST', '/auth/logout', {}, personCookie)).status],
      ['suspension', async (person) => (await admin('POST', `/admin/identities/${person}/suspend`, {})).status],
      [
        'sign out everywhere',
        async (person) => (await admin('POST', `/admin/identities/${person}/sessions/revoke`, {})).status,
      ],
    ];
    for (const [ending, end] of endings) {
      const person = await makeIdentity(t.sql);
      const { cookie: personCookie } = await makeSession(t, person);
      const { verifier, challenge } = pkcePair();
      const code = await obtainCode(t, { client, cookie: personCookie, challenge });
      assert.ok([200, 204].includes(await end(person, personCookie)), ending);
      assertEnvelope(
        await exchange(code, verifier),
        400,
        'invalid_grant',
        'The sign-in behind the authorization code has ended; sign in again',
      );
      const [grants] = await t.sql`select count(*)::int as n from oauth_grants where identity_id = ${person}`;
      assert.equal(grants?.n, 0, `${ending}: no grant may be created`);
    }
  });

  test('an exchange racing an uncommitted suspension waits for it, then refuses: no grant outlives it', async () => {
    const person = await makeIdentity(t.sql);
    const { cookie: personCookie } = await makeSession(t, person);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie: personCookie, challenge });
    const now = t.clock.now();
    let exchanged: ReturnType<typeof exchange> | undefined;
    await t.sql.begin(async (tx) => {
      // What a suspension writes (src/admin/identities.ts), held open while the exchange arrives.
      await tx`update identities set state = 'suspended' where id = ${person}`;
      await revokeIdentitySessions(tx, person, now);
      await revokeIdentityGrants(tx, person, now);
      exchanged = exchange(code, verifier);
      await untilBlocked(t.sql, exchanged);
    });
    assertEnvelope(
      await (exchanged as ReturnType<typeof exchange>),
      400,
      'invalid_grant',
      'The sign-in behind the authorization code has ended; sign in again',
    );
    const [grants] = await t.sql`select count(*)::int as n from oauth_grants where identity_id = ${person}`;
    assert.equal(grants?.n, 0);
  });

  test('rejects an unknown code with invalid_grant', async () => {
    assertEnvelope(
      await exchange('never-issued-code', pkcePair().verifier),
      400,
      'invalid_grant',
      'The authorization code is invalid',
    );
  });

  test('refuses a service client using authorization_code with unauthorized_client', async () => {
    const service = await makeServiceClient(t.sql, key, ['read']);
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier, { client_id: service.client.id, client_secret: service.secret });
    assertEnvelope(r, 400, 'unauthorized_client', 'A service client may only use client_credentials');
    assert.equal((await exchange(code, verifier)).status, 200, 'the refusal did not spend the code');
  });

  test('refuses a public client that sends a client_secret with invalid_client', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client: spa, cookie, challenge, scope: 'openid' });
    const r = await postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: spa.id,
      client_secret: 'anything',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    assertEnvelope(r, 401, 'invalid_client', 'A public client does not send client_secret');
    assert.equal(r.headers['www-authenticate'], undefined, 'no Authorization header was tried');
  });

  test('refuses HTTP Basic client authentication with 401 invalid_client, WWW-Authenticate and the form body', async () => {
    const r = await postForm(
      t,
      '/oauth/token',
      { grant_type: 'authorization_code', code: 'x' },
      {
        authorization: `Basic ${Buffer.from(`${client.id}:${secret}`).toString('base64')}`,
      },
    );
    assertEnvelope(
      r,
      401,
      'invalid_client',
      'HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)',
    );
    // RFC 6749 §5.2: a client that tried the Authorization header is told the scheme it used.
    assert.equal(
      r.headers['www-authenticate'],
      `Basic realm="gatehouse", error="invalid_client", error_description="HTTP Basic client authentication is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)"`,
    );
    const bearer = await postForm(
      t,
      '/oauth/token',
      { grant_type: 'client_credentials' },
      { authorization: 'Bearer x' },
    );
    assertEnvelope(
      bearer,
      401,
      'invalid_client',
      'Client authentication in the Authorization header is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)',
    );
    assert.equal(
      bearer.headers['www-authenticate'],
      `Bearer realm="gatehouse", error="invalid_client", error_description="Client authentication in the Authorization header is not supported: send client_id and client_secret in the form body (token_endpoint_auth_method client_secret_post)"`,
    );
  });

  test('refuses a wrong client secret with invalid_client', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    assertEnvelope(
      await exchange(code, verifier, { client_secret: 'nope' }),
      401,
      'invalid_client',
      'Unknown client or wrong credentials',
    );
  });

  test('never writes a secret, code or token to the log', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const r = await exchange(code, verifier);
    for (const value of [secret as string, code, verifier, r.json.access_token, r.json.refresh_token, r.json.id_token])
      assert.ok(!t.logs.text.includes(String(value)));
    assert.ok(t.logs.text.includes('/oauth/token'));
  });

  test('refuses an unknown or missing grant_type, and a JSON body', async () => {
    assertEnvelope(
      await postForm(t, '/oauth/token', { grant_type: 'password' }),
      400,
      'unsupported_grant_type',
      'grant_type password is not supported',
    );
    assertEnvelope(await postForm(t, '/oauth/token', {}), 400, 'invalid_request', 'grant_type is required');
    // RFC 6749 §5.2: the description quotes the value only in the characters it allows.
    assertEnvelope(
      await postForm(t, '/oauth/token', { grant_type: `a"é\\${'x'.repeat(100)}` }),
      400,
      'unsupported_grant_type',
      `grant_type a???${'x'.repeat(60)}... is not supported`,
    );
    const json = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(json.statusCode, 415);
    const repeated = await t.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=a&grant_type=b',
    });
    assert.equal(JSON.parse(repeated.body).error_description, 'Parameter grant_type is included more than once');
  });

  test('refuses a control character in any parameter, naming it, before it reaches the database', async () => {
    for (const [endpoint, name, form] of [
      ['/oauth/token', 'client_id', { grant_type: 'client_credentials', client_id: 'cli_\u0000', client_secret: 'x' }],
      [
        '/oauth/token',
        'redirect_uri',
        { grant_type: 'authorization_code', client_id: client.id, code: 'c', redirect_uri: 'a\u0000' },
      ],
      ['/oauth/introspect', 'client_id', { client_id: 'cli_\u0000', client_secret: 'x', token: 't' }],
      ['/oauth/revoke', 'token', { client_id: client.id, client_secret: secret as string, token: 't\u001f' }],
    ] as const) {
      assertEnvelope(
        await postForm(t, endpoint, form),
        400,
        'invalid_request',
        `Parameter ${name} contains a control character`,
      );
    }
  });
});

describe('a replayed code after its row is gone', async () => {
  const t = await startTestApp();
  const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { client: other, secret: otherSecret } = await makeClient(t.sql, t.secrets.clientSecret);
  const { cookie } = await makeSession(t, await makeIdentity(t.sql));
  const exchange = (code: string, verifier: string, caller = { id: client.id, secret: secret as string }) =>
    postForm(t, '/oauth/token', {
      grant_type: 'authorization_code',
      client_id: caller.id,
      client_secret: caller.secret,
      code,
      redirect_uri: 'https://app.example.test/callback',
      code_verifier: verifier,
    });
  const revocations = async (grantId: string) =>
    (await t.sql`select 1 from audit_events where event = 'oauth.grant_revoked' and subject = ${grantId}`).length;

  test('a month and a housekeeping round later, any client replaying the code revokes its grant, audited once', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await obtainCode(t, { client, cookie, challenge });
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    t.clock.advance(30 * 24 * 3600);
    await runHousekeeping(t.sql, t.clock.now());
    const grantId = grantIdOfCode(code);
    assert.equal(await revocations(grantId), 0);
    assertEnvelope(
      await exchange(code, verifier, { id: other.id, secret: otherSecret as string }),
      400,
      'invalid_grant',
      CODE_REUSED,
    );
    const [grant] = await t.sql`select revoked_at from oauth_grants where id = ${grantId}`;
    assert.ok(grant?.revoked_at, 'the grant is revoked');
    assert.equal(await revocations(grantId), 1);
    // Again: the grant had ended already, so the answer is the same and nothing more is recorded.
    assertEnvelope(await exchange(code, verifier), 400, 'invalid_grant', CODE_REUSED);
    assert.equal(await revocations(grantId), 1);
  });

  test('a code never issued names no grant: invalid, and nothing is revoked or recorded', async () => {
    const { verifier, challenge } = pkcePair();
    const signedIn = (await makeSession(t, await makeIdentity(t.sql))).cookie;
    assert.equal((await exchange(await obtainCode(t, { client, cookie: signedIn, challenge }), verifier)).status, 200);
    const live = () => t.sql`select id from oauth_grants where revoked_at is null order by id`;
    const recorded = async () =>
      (await t.sql`select count(*)::int as n from audit_events where event = 'oauth.grant_revoked'`)[0]?.n;
    const [liveBefore, recordedBefore] = [await live(), await recorded()];
    assertEnvelope(
      await exchange('a-code-this-server-never-issued', pkcePair().verifier),
      400,
      'invalid_grant',
      'The authorization code is invalid',
    );
    assert.equal(liveBefore.length, 1);
    assert.deepEqual(await live(), liveBefore);
    assert.equal(await recorded(), recordedBefore);
  });
});
