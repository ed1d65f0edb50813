// The /device page's JSON API (src/oauth/device-routes.ts) refusing what it must: no session, a session that waits
// for its second step, a cross-site request, a wrong code, and guessing past a person's or everyone's budget of wrong
// codes in a window, counted in PostgreSQL so every node sees the same budget. Whole envelopes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startTestApp } from '../helpers/app.ts';
import { deviceApi, discover, requestCodes } from '../helpers/device-flow.ts';
import { makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';

describe('POST /oauth/device/lookup and /oauth/device/decision', async () => {
  const t = await startListeningIssuer({ device_authorization: { failures_per_person: 3, failures_overall: 10 } });
  const as = await discover(t.issuer);
  const tv = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    name: 'Acme TV',
    redirectUris: [],
    deviceAuthorizationGrant: true,
  });
  const envelope = (answer: { headers: Headers }, error: string, description: string) => ({
    error,
    error_description: description,
    request_id: answer.headers.get('x-request-id'),
  });
  const WRONG = 'This code is not valid or has expired. Check the code on your device and type it again.';
  const TOO_MANY = 'Too many wrong codes; wait a few minutes and try again.';
  /** Moves the clock past every window counting so far (15 minutes), so a test's budgets are its own. */
  const freshWindow = () => t.clock.advance(15 * 60 + 1);

  test('without a session: 401 login_required; the page then sends the person to sign in', async () => {
    const answer = await deviceApi(t, '/oauth/device/account', '');
    assert.equal(answer.status, 401);
    assert.deepEqual(answer.json, envelope(answer, 'login_required', 'Sign in first.'));
  });

  test('a session waiting for its second step is sent through it first: 403 second_factor_required', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub, { pending: 'second_factor', aal: 'aal1', amr: ['pwd'] });
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const answer = await deviceApi(t, '/oauth/device/decision', cookie, {
      user_code: codes.user_code,
      decision: 'approve',
    });
    assert.equal(answer.status, 403);
    assert.equal(answer.json.error, 'second_factor_required');
    const [row] =
      await t.sql`select status from oauth_device_codes where client_id = ${tv.client.id} order by created_at desc limit 1`;
    assert.equal(row?.status, 'pending', 'nothing was decided');
  });

  test('a cross-site request is refused with csrf_rejected and decides nothing', async () => {
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const response = await fetch(`${t.issuer}/oauth/device/decision`, {
      method: 'POST',
      headers: { cookie, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: codes.user_code, decision: 'approve' }),
    });
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as { error: string }).error, 'csrf_rejected');
    const [row] =
      await t.sql`select status from oauth_device_codes where client_id = ${tv.client.id} order by created_at desc limit 1`;
    assert.equal(row?.status, 'pending');
  });

  test('a wrong code is invalid_user_code; a decided code cannot be decided again', async () => {
    freshWindow();
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    const wrong = await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: 'BCDF-GHJK' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.json, envelope(wrong, 'invalid_user_code', WRONG));
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const first = await deviceApi(t, '/oauth/device/decision', cookie, {
      user_code: codes.user_code,
      decision: 'deny',
    });
    assert.equal(first.status, 200);
    const again = await deviceApi(t, '/oauth/device/decision', cookie, {
      user_code: codes.user_code,
      decision: 'approve',
    });
    assert.deepEqual(again.json, envelope(again, 'invalid_user_code', WRONG));
    const malformed = await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: 'x'.repeat(33) });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json.error, 'invalid_request');
  });

  test('a person’s wrong codes past the budget answer 429 rate_limited, even with a right code, until the window ends', async () => {
    freshWindow();
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    // Two sessions of the same person share the budget.
    const other = await makeSession(t, sub);
    for (const session of [cookie, other.cookie, cookie]) {
      const answer = await deviceApi(t, '/oauth/device/lookup', session, { user_code: 'BCDF-GHJK' });
      assert.equal(answer.json.error, 'invalid_user_code');
    }
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const refused = await deviceApi(t, '/oauth/device/lookup', other.cookie, { user_code: codes.user_code });
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.json, envelope(refused, 'rate_limited', TOO_MANY));
    assert.ok(Number(refused.headers.get('retry-after')) > 0);
    const [audit] = await t.sql`select actor, details from audit_events
                                where event = 'oauth.device_user_code_throttled' order by id desc limit 1`;
    assert.equal(audit?.actor, sub);
    assert.deepEqual(audit?.details, { budget: 'person' });
    // Someone else is not affected by this person's budget.
    const stranger = await makeSession(t, await makeIdentity(t.sql));
    const shown = await deviceApi(t, '/oauth/device/lookup', stranger.cookie, { user_code: codes.user_code });
    assert.equal(shown.status, 200);
    // The next window starts afresh (with a new code: the old one expired meanwhile).
    freshWindow();
    const fresh = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const later = await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: fresh.user_code });
    assert.equal(later.status, 200, JSON.stringify(later.json));
  });

  test('wrong codes of many people together past the overall budget refuse everyone until the window ends', async () => {
    freshWindow();
    // Ten people, one wrong code each (the overall budget is 10 here): nobody reached their own budget of 3.
    for (let i = 0; i < 10; i++) {
      const { cookie } = await makeSession(t, await makeIdentity(t.sql));
      assert.equal(
        (await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: 'BCDF-GHJK' })).json.error,
        'invalid_user_code',
      );
    }
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const { cookie } = await makeSession(t, await makeIdentity(t.sql));
    const refused = await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: codes.user_code });
    assert.equal(refused.status, 429);
    assert.deepEqual(refused.json, envelope(refused, 'rate_limited', TOO_MANY));
    const [audit] = await t.sql`select details from audit_events
                                where event = 'oauth.device_user_code_throttled' order by id desc limit 1`;
    assert.deepEqual(audit?.details, { budget: 'overall' });
    // The counters live in PostgreSQL: what another node would read.
    const rows = await t.sql`select key from request_counters
                             where bucket = 'device_user_code' and key = 'overall' and count >= 10`;
    assert.equal(rows.length, 1);
    freshWindow();
    const fresh = await requestCodes(as, tv.client.id, { scope: 'openid' });
    assert.equal((await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: fresh.user_code })).status, 200);
  });

  test('the budget holds across nodes: another app on the same database refuses the person too', async () => {
    freshWindow();
    const other = await startTestApp({ sql: t.sql, config: t.config, clock: t.clock });
    const sub = await makeIdentity(t.sql);
    const { cookie } = await makeSession(t, sub);
    for (let i = 0; i < 3; i++) {
      const answer = await deviceApi(t, '/oauth/device/lookup', cookie, { user_code: 'BCDF-GHJK' });
      assert.equal(answer.json.error, 'invalid_user_code');
    }
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const elsewhere = await other.app.inject({
      method: 'POST',
      url: '/oauth/device/lookup',
      headers: { cookie, origin: t.issuer, 'content-type': 'application/json' },
      payload: { user_code: codes.user_code },
    });
    assert.equal(elsewhere.statusCode, 429);
    assert.equal(elsewhere.json().error, 'rate_limited');
  });
});
