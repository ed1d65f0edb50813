// GET /account/grants and POST /account/grants/:client_id/revoke: a person sees the applications holding access to
// their account, one entry per client, and ends one's access at once; a third-party client then asks for consent
// again (ASVS 5 V10.7.3). Another person's grants can neither be seen nor ended.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Client } from '../../src/clients/store.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { adminCaller, assertAdminError, auditOf } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { assertTokensDead, assertTokensLive, authorizeAnswer, consentTo, introspect } from '../helpers/grants.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { authorizedCode, postForm, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';

// The account API needs self-service with delivery configured; nothing here sends a message.
const t = await startTestApp({
  config: makeConfig({
    self_service: { enabled: true },
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
  }),
});

/** A client whose application carries `applicationName`, so entries can be told apart. */
async function client(name: string, applicationName: string, firstParty = true) {
  const made = await makeClient(t.sql, t.secrets.clientSecret, { name, firstParty });
  await t.sql`update oauth_applications set name = ${applicationName} where id = ${made.client.applicationId}`;
  return { client: made.client, secret: made.secret as string };
}

const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const notes = await client('Notes web', 'Acme Notes');
const planner = await client('Planner web', 'Acme Planner');
const gadget = await client('Gadget sync', 'Gadget', false);

/** A signed-in session with the browser facts a person recognizes it by. */
async function session(sub: Sub, userAgent: string, clientIp: string) {
  const made = await makeSession(t, sub);
  await t.sql`update sessions set user_agent = ${userAgent}, client_ip = ${clientIp} where id = ${made.session.id}`;
  return made;
}

const tokensOf = async (c: { client: Client; secret: string }, cookie: string, scope: string) => ({
  ...c,
  ...(await userTokens(t, { client: c.client, secret: c.secret, cookie, scope })),
});

const listAs = async (cookie: string) => adminCaller(t, cookie)('GET', '/account/grants');
const revokeAs = (cookie: string, clientId: string) =>
  adminCaller(t, cookie)('POST', `/account/grants/${encodeURIComponent(clientId)}/revoke`, {});

const WORDS = {
  openid: 'Know who you are (your account identifier)',
  profile: 'See your name',
  email: 'See your email address',
  offline_access: 'Stay signed in and act for you while you are away',
} as const;
const described = (...scopes: (keyof typeof WORDS)[]) => scopes.map((scope) => ({ scope, description: WORDS[scope] }));

describe('GET /account/grants', () => {
  test('lists each application once with its scopes, first and last use and the sessions it came from', async () => {
    const sub = await makeIdentity(t.sql);
    // A sign-in without offline_access long ago: its access token has expired, so it gives no access any more.
    const early = await makeSession(t, sub);
    await tokensOf(planner, early.cookie, 'openid');
    t.clock.advance(t.config.tokens.access_token_ttl_seconds + 1);

    const laptop = await session(sub, FIREFOX_LINUX, '203.0.113.7');
    const start = t.clock.now();
    const fromLaptop = await tokensOf(notes, laptop.cookie, 'openid profile offline_access');
    t.clock.advance(60);
    const phone = await session(sub, SAFARI_IPHONE, '198.51.100.23');
    await tokensOf(notes, phone.cookie, 'openid email offline_access');
    t.clock.advance(60);
    const refreshedAt = t.clock.now();
    assert.equal((await refreshTokens(t, notes.client, notes.secret, fromLaptop.refresh_token)).status, 200);
    t.clock.advance(10);
    const consentedAt = t.clock.now();
    await consentTo(t, gadget.client, laptop.cookie, 'openid profile');
    await tokensOf(gadget, laptop.cookie, 'openid profile');
    // A grant its client revoked (RFC 7009) is gone from the list.
    const revoked = await tokensOf(planner, phone.cookie, 'openid offline_access');
    const r7009 = await postForm(t, '/oauth/revoke', {
      client_id: planner.client.id,
      client_secret: planner.secret,
      token: revoked.refresh_token,
    });
    assert.equal(r7009.status, 200);

    const listed = await listAs(laptop.cookie);
    assert.equal(listed.status, 200);
    assert.equal(listed.headers['cache-control'], 'no-store');
    const laptopSession = (current: boolean) => ({
      id: laptop.session.id,
      current,
      live: true,
      signed_in_at: start.toISOString(),
      client_ip: '203.0.113.7',
      user_agent: FIREFOX_LINUX,
      device: 'Firefox 133 on Linux',
    });
    assert.deepEqual(listed.json, {
      grants: [
        {
          client_id: gadget.client.id,
          client_name: 'Gadget sync',
          application_id: gadget.client.applicationId,
          application_name: 'Gadget',
          first_party: false,
          active_grants: 1,
          scopes: described('openid', 'profile'),
          consented_scopes: described('openid', 'profile'),
          first_used_at: consentedAt.toISOString(),
          last_used_at: consentedAt.toISOString(),
          sessions: [laptopSession(true)],
        },
        {
          client_id: notes.client.id,
          client_name: 'Notes web',
          application_id: notes.client.applicationId,
          application_name: 'Acme Notes',
          first_party: true,
          active_grants: 2,
          scopes: described('openid', 'profile', 'offline_access', 'email'),
          consented_scopes: [],
          first_used_at: start.toISOString(),
          last_used_at: refreshedAt.toISOString(),
          // The session the client was last refreshed from leads.
          sessions: [
            laptopSession(true),
            {
              id: phone.session.id,
              current: false,
              live: true,
              signed_in_at: new Date(start.getTime() + 60_000).toISOString(),
              client_ip: '198.51.100.23',
              user_agent: SAFARI_IPHONE,
              device: 'Mobile Safari 17 on Apple iPhone, iOS 17.5',
            },
          ],
        },
      ],
    });

    // From the phone, the same entries, with the phone's session marked as the current one.
    const fromPhone = (await listAs(phone.cookie)).json.grants as { sessions: { id: string; current: boolean }[] }[];
    assert.deepEqual(
      fromPhone[1]?.sessions.map((s) => [s.id, s.current]),
      [
        [laptop.session.id, false],
        [phone.session.id, true],
      ],
    );

    // Once the third-party client's token has expired, its remembered consent still lets it in without asking:
    // it stays listed, holding no grant, until the person revokes it.
    t.clock.advance(t.config.tokens.access_token_ttl_seconds + 1);
    const later = (await listAs(laptop.cookie)).json.grants as Record<string, unknown>[];
    assert.deepEqual(
      later.map((g) => [g.client_name, g.active_grants, g.scopes, g.consented_scopes, (g.sessions as []).length]),
      [
        ['Gadget sync', 0, [], described('openid', 'profile'), 0],
        ['Notes web', 2, described('openid', 'profile', 'offline_access', 'email'), [], 2],
      ],
    );
  });

  test('without a session is 401 login_required', async () => {
    assertAdminError(await listAs(''), 401, 'login_required', 'Sign in first.');
  });
});

describe('POST /account/grants/:client_id/revoke', () => {
  test('a third-party client’s tokens stop working at once and it must ask for consent again', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await session(sub, FIREFOX_LINUX, '203.0.113.7');
    await consentTo(t, gadget.client, cookie, 'openid profile offline_access');
    const tokens = await tokensOf(gadget, cookie, 'openid profile offline_access');
    // Introspected once, so the node's token state cache holds the grant as live: revocation must reach it.
    assert.equal((await introspect(t, gadget.client, gadget.secret, tokens.access_token)).json.active, true);
    assert.equal((await authorizeAnswer(t, gadget.client, cookie, 'openid profile')).status, 302);

    const revoked = await revokeAs(cookie, gadget.client.id);
    assert.equal(revoked.status, 204);
    await tokenStateSynced(t);
    await assertTokensDead(t, tokens);
    const again = await authorizeAnswer(t, gadget.client, cookie, 'openid profile');
    assert.equal(again.status, 200);
    assert.match(again.body, /Gadget sync wants to access your account/);
    assert.deepEqual((await listAs(cookie)).json, { grants: [] });
    assert.deepEqual(await auditOf(t, sub), [
      {
        event: 'oauth.access_revoked',
        actor: sub,
        // The codes of the consent answer and of the check above were never exchanged: they are discarded too.
        details: { client_id: gadget.client.id, grants_revoked: 1, consent_removed: true, codes_discarded: 2 },
      },
    ]);
  });

  test('ends the grants of every session the application was authorized from, and only that application’s', async () => {
    const sub = await makeIdentity(t.sql);
    const laptop = await session(sub, FIREFOX_LINUX, '203.0.113.7');
    const phone = await session(sub, SAFARI_IPHONE, '198.51.100.23');
    const fromLaptop = await tokensOf(notes, laptop.cookie, 'openid offline_access');
    const fromPhone = await tokensOf(notes, phone.cookie, 'openid offline_access');
    const other = await tokensOf(planner, laptop.cookie, 'openid offline_access');

    assert.equal((await revokeAs(laptop.cookie, notes.client.id)).status, 204);
    await tokenStateSynced(t);
    await assertTokensDead(t, fromLaptop);
    await assertTokensDead(t, fromPhone);
    await assertTokensLive(t, other);
    const left = (await listAs(laptop.cookie)).json.grants as { client_id: string }[];
    assert.deepEqual(
      left.map((g) => g.client_id),
      [planner.client.id],
    );
    // A first-party client is trusted by the operator and never asks for consent: it can sign the person in again.
    assert.equal((await authorizeAnswer(t, notes.client, laptop.cookie, 'openid')).status, 302);
    const [record] = await auditOf(t, sub);
    assert.deepEqual(record?.details, {
      client_id: notes.client.id,
      grants_revoked: 2,
      consent_removed: false,
      codes_discarded: 0,
    });
  });

  test('a code issued before the revocation can no longer be exchanged for tokens', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    const pending = await authorizedCode(t, { client: notes.client, secret: notes.secret, cookie });
    assert.equal((await revokeAs(cookie, notes.client.id)).status, 204);
    const exchanged = await pending.exchange();
    assert.equal(exchanged.status, 400);
    assert.deepEqual(exchanged.json, {
      error: 'invalid_grant',
      error_description: 'The authorization code is invalid',
      request_id: exchanged.headers['x-request-id'],
    });
    const [record] = await auditOf(t, sub);
    assert.deepEqual(record?.details, {
      client_id: notes.client.id,
      grants_revoked: 0,
      consent_removed: false,
      codes_discarded: 1,
    });
  });

  test('another person’s application is 404 not_found, unlisted, and keeps working for them', async () => {
    const sub = await makeIdentity(t.sql);
    const stranger = await makeIdentity(t.sql);
    const mine = await makeSession(t, sub);
    const theirs = await makeSession(t, stranger);
    const tokens = await tokensOf(notes, theirs.cookie, 'openid offline_access');
    assert.deepEqual((await listAs(mine.cookie)).json, { grants: [] });
    assertAdminError(
      await revokeAs(mine.cookie, notes.client.id),
      404,
      'not_found',
      'No application with this id holds a grant of yours',
    );
    await assertTokensLive(t, tokens);
    assert.deepEqual(await auditOf(t, sub), []);
    assert.deepEqual(await auditOf(t, stranger), []);
  });

  test('an unknown client, anonymous, cross-site or malformed request is refused and ends nothing', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    const tokens = await tokensOf(notes, cookie, 'openid offline_access');
    assertAdminError(
      await revokeAs(cookie, 'cli_nobody'),
      404,
      'not_found',
      'No application with this id holds a grant of yours',
    );
    assertAdminError(await revokeAs('', notes.client.id), 401, 'login_required', 'Sign in first.');
    const crossSite = await adminCaller(t, cookie, 'https://evil.example.test')(
      'POST',
      `/account/grants/${notes.client.id}/revoke`,
      {},
    );
    assertAdminError(crossSite, 403, 'csrf_rejected', 'The request came from another origin');
    const badId = await revokeAs(cookie, 'cli_not an id');
    assert.equal(badId.status, 400);
    assert.equal(badId.json.error, 'invalid_request');
    const withBody = await adminCaller(t, cookie)('POST', `/account/grants/${notes.client.id}/revoke`, { all: true });
    assert.equal(withBody.status, 400);
    assert.equal(withBody.json.error, 'invalid_request');
    await assertTokensLive(t, tokens);
    assert.deepEqual(await auditOf(t, sub), []);
  });
});
