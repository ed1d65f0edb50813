// GET /admin/identities/:sub/grants and POST /admin/identities/:sub/grants/:client_id/revoke: an owner sees the
// applications holding an identity's grants, as the person does on their account page, and ends one's access at
// once, audited; a third-party client must then ask the person for consent again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminCaller, assertAdminError, auditOf } from '../helpers/admin-api.ts';
import { startTestApp } from '../helpers/app.ts';
import { assertTokensDead, assertTokensLive, authorizeAnswer, consentTo, introspect } from '../helpers/grants.ts';
import { makeAdmin, makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { userTokens } from '../helpers/oauth-flow.ts';
import { tokenStateSynced } from '../helpers/token-state.ts';

const t = await startTestApp();
const admin = await makeAdmin(t);
const call = adminCaller(t, admin.cookie);
const made = await makeClient(t.sql, t.secrets.clientSecret, { name: 'Gadget sync', firstParty: false });
const gadget = { client: made.client, secret: made.secret as string };
const other = await makeClient(t.sql, t.secrets.clientSecret, { name: 'Notes web' });
const notes = { client: other.client, secret: other.secret as string };

const grantsPath = (sub: string) => `/admin/identities/${sub}/grants`;
const revokePath = (sub: string, clientId: string) => `/admin/identities/${sub}/grants/${clientId}/revoke`;

describe('GET /admin/identities/:sub/grants', () => {
  test('lists the identity’s applications with scopes, use and sessions, without marking a current session', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie, session } = await makeSession(t, sub);
    const at = t.clock.now().toISOString();
    await consentTo(t, gadget.client, cookie, 'openid email offline_access');
    await userTokens(t, { client: gadget.client, secret: gadget.secret, cookie, scope: 'openid email offline_access' });
    const r = await call('GET', grantsPath(sub));
    assert.equal(r.status, 200);
    const scopes = [
      { scope: 'openid', description: 'Know who you are (your account identifier)' },
      { scope: 'email', description: 'See your email address' },
      { scope: 'offline_access', description: 'Stay signed in and act for you while you are away' },
    ];
    assert.deepEqual(r.json, {
      grants: [
        {
          client_id: gadget.client.id,
          client_name: 'Gadget sync',
          application_id: gadget.client.applicationId,
          application_name: 'Test app',
          first_party: false,
          active_grants: 1,
          scopes,
          consented_scopes: scopes,
          first_used_at: at,
          last_used_at: at,
          sessions: [{ id: session.id, live: true, signed_in_at: at, client_ip: null, user_agent: null, device: null }],
        },
      ],
    });
  });

  test('an unknown identity is 404; no session is 401; a member is 403', async () => {
    assertAdminError(await call('GET', grantsPath('usr_nobody')), 404, 'not_found', 'No such identity');
    assertAdminError(await call('GET', grantsPath(admin.sub), undefined, ''), 401, 'login_required', 'Sign in first.');
    const member = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, member);
    assertAdminError(
      await call('GET', grantsPath(member), undefined, cookie),
      403,
      'admin_required',
      'Only an owner of the organization may do this',
    );
  });
});

describe('POST /admin/identities/:sub/grants/:client_id/revoke', () => {
  test('ends the application’s tokens at once, forgets the consent and records who did it', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    await consentTo(t, gadget.client, cookie, 'openid offline_access');
    const tokens = {
      ...gadget,
      ...(await userTokens(t, { ...gadget, cookie, scope: 'openid offline_access' })),
    };
    const kept = { ...notes, ...(await userTokens(t, { ...notes, cookie, scope: 'openid offline_access' })) };
    assert.equal((await introspect(t, gadget.client, gadget.secret, tokens.access_token)).json.active, true);

    const r = await call('POST', revokePath(sub, gadget.client.id), {});
    assert.equal(r.status, 200);
    assert.deepEqual(r.json, { client_id: gadget.client.id, grants_revoked: 1, consent_removed: true });
    await tokenStateSynced(t);
    await assertTokensDead(t, tokens);
    await assertTokensLive(t, kept);
    assert.equal((await authorizeAnswer(t, gadget.client, cookie, 'openid')).status, 200, 'consent is asked again');
    assert.deepEqual(
      ((await call('GET', grantsPath(sub))).json.grants as { client_id: string }[]).map((g) => g.client_id),
      [notes.client.id],
    );
    const records = await auditOf(t, sub);
    assert.deepEqual(records, [
      {
        event: 'oauth.access_revoked',
        actor: admin.sub,
        // The consent answer's code was never exchanged: it is discarded too.
        details: { client_id: gadget.client.id, grants_revoked: 1, consent_removed: true, codes_discarded: 1 },
      },
    ]);
  });

  test('another identity’s application, an unknown identity or client is 404 and ends nothing', async () => {
    const sub = await makeIdentity(t.sql);
    const stranger = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, stranger);
    const theirs = { ...notes, ...(await userTokens(t, { ...notes, cookie, scope: 'openid offline_access' })) };
    const noGrant = 'No application with this id holds a grant of this identity';
    assertAdminError(await call('POST', revokePath(sub, notes.client.id), {}), 404, 'not_found', noGrant);
    assertAdminError(await call('POST', revokePath(stranger, 'cli_nobody'), {}), 404, 'not_found', noGrant);
    assertAdminError(
      await call('POST', revokePath('usr_nobody', notes.client.id), {}),
      404,
      'not_found',
      'No such identity',
    );
    await assertTokensLive(t, theirs);
    assert.deepEqual(await auditOf(t, sub), []);
    assert.deepEqual(await auditOf(t, stranger), []);
  });

  test('without a session is 401, a member is 403, a malformed id is 400, and nothing ends', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    const tokens = { ...notes, ...(await userTokens(t, { ...notes, cookie, scope: 'openid offline_access' })) };
    const path = revokePath(sub, notes.client.id);
    assertAdminError(await call('POST', path, {}, ''), 401, 'login_required', 'Sign in first.');
    assertAdminError(
      await call('POST', path, {}, cookie),
      403,
      'admin_required',
      'Only an owner of the organization may do this',
    );
    const malformed = await call('POST', revokePath(sub, 'not-a-client'), {});
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json.error, 'invalid_request');
    await assertTokensLive(t, tokens);
    assert.deepEqual(await auditOf(t, sub), []);
  });
});
