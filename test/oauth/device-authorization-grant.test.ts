// The device authorization grant (RFC 8628) against a listening Gatehouse with oauth4webapi's device-flow helpers, as
// a command-line tool or TV app sends them; the person's approval goes through the /device page's JSON API here
// (test/web/device-page.test.ts drives the page in Chromium). Every refusal is asserted with its whole envelope.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { calculateJwkThumbprint, decodeJwt, exportJWK } from 'jose';
import * as oauth from 'oauth4webapi';
import { DEVICE_GRANT, decide, discover, insecure, poll, requestCodes } from '../helpers/device-flow.ts';
import { dpopKeys, followRealTime } from '../helpers/dpop.ts';
import { makeClient, makeIdentity, makeResource, makeSession } from '../helpers/oauth-fixtures.ts';
import { postForm } from '../helpers/oauth-flow.ts';
import { startListeningIssuer } from '../helpers/oauth-server.ts';

const TV =
  'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 85.0.4183.93/6.0 TV Safari/537.36';

describe('POST /oauth/device_authorization and grant_type=urn:ietf:params:oauth:grant-type:device_code', async () => {
  const t = await startListeningIssuer();
  followRealTime(t.clock);
  const as = await discover(t.issuer);
  const photos = await makeResource(t.sql, 'https://photos.acme.test/', ['photos:read', 'photos:write']);
  // A TV app: public, allowed the grant, no redirect URI at all.
  const tv = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'native',
    name: 'Acme TV',
    redirectUris: [],
    scopes: ['openid', 'profile', 'offline_access', 'photos:read'],
    audiences: [photos.audience],
    deviceAuthorizationGrant: true,
    firstParty: false,
  });
  // A confidential backend that also signs people in on kiosks.
  const kiosk = await makeClient(t.sql, t.secrets.clientSecret, {
    kind: 'web',
    name: 'Kiosk',
    scopes: ['openid', 'email'],
    deviceAuthorizationGrant: true,
  });
  // Never allowed the grant (the default).
  const plain = await makeClient(t.sql, t.secrets.clientSecret, { kind: 'native', name: 'Plain app' });
  const sub = await makeIdentity(t.sql, { displayName: 'Grace Hopper' });
  const { cookie, session } = await makeSession(t, sub);

  /** Asserts that processDeviceCodeResponse refuses `response` with exactly this envelope. */
  async function refused(response: Response, expected: { status?: number; error: string; description: string }) {
    const requestId = response.headers.get('x-request-id');
    if (response.status >= 500) assert.fail(`${response.status}: ${await response.text()} ${t.logs.text.slice(-3000)}`);
    await assert.rejects(oauth.processDeviceCodeResponse(as, { client_id: 'any' }, response), (error: unknown) => {
      assert.ok(error instanceof oauth.ResponseBodyError, String(error));
      assert.equal(error.status, expected.status ?? 400);
      assert.deepEqual(error.cause, {
        error: expected.error,
        error_description: expected.description,
        request_id: requestId,
      });
      return true;
    });
  }
  const PENDING = {
    error: 'authorization_pending',
    description: 'The person has not approved or denied the request yet; keep polling at the interval.',
  };

  test('discovery names the device authorization endpoint and the grant type', () => {
    assert.equal(as.device_authorization_endpoint, `${t.issuer}/oauth/device_authorization`);
    assert.ok(as.grant_types_supported?.includes(DEVICE_GRANT), JSON.stringify(as.grant_types_supported));
  });

  // First, while the app clock still follows real time: proofs carry the real time (iat).
  test('a poll with a DPoP proof gets a DPoP-bound access token and a refresh token bound to the same key', async () => {
    const keys = await dpopKeys();
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid offline_access' });
    await decide(t, cookie, codes.user_code, 'approve');
    const DPoP = oauth.DPoP({}, keys);
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      { client_id: tv.client.id },
      await poll(as, tv.client.id, codes.device_code, { DPoP }),
    );
    assert.equal(tokens.token_type, 'dpop');
    const jkt = await calculateJwkThumbprint(await exportJWK(keys.publicKey));
    assert.deepEqual(decodeJwt(tokens.access_token).cnf, { jkt });
    // RFC 9449 §5: a public client's refresh token needs a proof by that key.
    const unbound = await oauth.refreshTokenGrantRequest(
      as,
      { client_id: tv.client.id },
      oauth.None(),
      tokens.refresh_token as string,
      insecure,
    );
    assert.equal(unbound.status, 400);
    assert.equal(((await unbound.json()) as { error: string }).error, 'invalid_grant');
  });

  test('a TV app gets codes, polls pending, the person approves, and the next poll gets tokens once', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid profile offline_access' }, { userAgent: TV });
    assert.match(codes.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(codes.verification_uri, `${t.issuer}/device`);
    assert.equal(codes.verification_uri_complete, `${t.issuer}/device?user_code=${codes.user_code}`);
    assert.equal(codes.expires_in, 600);
    assert.equal(codes.interval, 5);
    assert.match(codes.device_code, /^[A-Za-z0-9_-]{43}$/);
    // Stored hashed: neither code appears in the table.
    const [row] = await t.sql`select * from oauth_device_codes where client_id = ${tv.client.id}`;
    assert.ok(!JSON.stringify(row).includes(codes.device_code));
    assert.ok(!JSON.stringify(row).includes(codes.user_code.replace('-', '')));

    await refused(await poll(as, tv.client.id, codes.device_code), PENDING);
    // The person types the code as they read it: lower case, a space instead of the dash.
    const typed = codes.user_code.toLowerCase().replace('-', ' ');
    const shown = await fetch(`${t.issuer}/oauth/device/lookup`, {
      method: 'POST',
      headers: { cookie, origin: t.issuer, 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: typed }),
    });
    const view = (await shown.json()) as Record<string, unknown>;
    assert.equal(shown.status, 200, JSON.stringify(view));
    assert.equal(view.user_code, codes.user_code);
    assert.equal(view.client_name, 'Acme TV');
    assert.equal((view.device as { kind: string }).kind, 'smarttv');
    assert.deepEqual(view.scopes, ['openid', 'profile', 'offline_access']);
    assert.deepEqual(await decide(t, cookie, typed, 'approve'), { status: 'approved', client_name: 'Acme TV' });

    t.clock.advance(5);
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      { client_id: tv.client.id },
      await poll(as, tv.client.id, codes.device_code),
    );
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.scope, 'openid profile offline_access');
    assert.ok(tokens.refresh_token, 'offline_access was granted');
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.sub, sub);
    assert.equal(claims.client_id, tv.client.id);
    assert.equal(claims.acr, session.aal);
    const idToken = decodeJwt(tokens.id_token as string);
    assert.equal(idToken.sub, sub);
    assert.equal(idToken.aud, tv.client.id);
    assert.equal(idToken.sid, session.id);

    // Redeemed once: the same device code again is spent.
    t.clock.advance(5);
    await refused(await poll(as, tv.client.id, codes.device_code), {
      error: 'invalid_grant',
      description: 'The device code is invalid, was issued to another client or was already used',
    });
    // The refresh token works like the code flow's, and approval recorded consent.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      { client_id: tv.client.id },
      await oauth.refreshTokenGrantRequest(
        as,
        { client_id: tv.client.id },
        oauth.None(),
        tokens.refresh_token as string,
        insecure,
      ),
    );
    assert.equal(decodeJwt(refreshed.access_token).sub, sub);
    const [consent] =
      await t.sql`select scopes from oauth_consents where identity_id = ${sub} and client_id = ${tv.client.id}`;
    assert.deepEqual([...((consent?.scopes as string[] | undefined) ?? [])].sort(), [
      'offline_access',
      'openid',
      'profile',
    ]);
  });

  test('polling faster than the interval answers slow_down and grows the stored interval by 5 seconds', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    await refused(await poll(as, tv.client.id, codes.device_code), PENDING);
    t.clock.advance(2);
    await refused(await poll(as, tv.client.id, codes.device_code), {
      error: 'slow_down',
      description: 'Polling too fast: wait 10 seconds between polls from now on',
    });
    // 5 s is no longer enough: the interval is 10 now, for every later poll.
    t.clock.advance(5);
    await refused(await poll(as, tv.client.id, codes.device_code), {
      error: 'slow_down',
      description: 'Polling too fast: wait 15 seconds between polls from now on',
    });
    t.clock.advance(15);
    await refused(await poll(as, tv.client.id, codes.device_code), PENDING);
    const [row] = await t.sql`select interval_seconds from oauth_device_codes where client_id = ${tv.client.id}
                              order by created_at desc limit 1`;
    assert.equal(row?.interval_seconds, 15);
  });

  test('a denied request answers access_denied (400), and keeps answering it', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    assert.deepEqual(await decide(t, cookie, codes.user_code, 'deny'), { status: 'denied', client_name: 'Acme TV' });
    const denied = { error: 'access_denied', description: 'The person denied the request' };
    await refused(await poll(as, tv.client.id, codes.device_code), denied);
    t.clock.advance(5);
    await refused(await poll(as, tv.client.id, codes.device_code), denied);
  });

  test('an expired device code answers expired_token, and its user code is no longer found', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    t.clock.advance(601);
    await refused(await poll(as, tv.client.id, codes.device_code), {
      error: 'expired_token',
      description: 'The device code has expired; start a new device authorization.',
    });
    const late = await fetch(`${t.issuer}/oauth/device/decision`, {
      method: 'POST',
      headers: { cookie, origin: t.issuer, 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: codes.user_code, decision: 'approve' }),
    });
    assert.equal(late.status, 400);
    assert.equal(((await late.json()) as { error: string }).error, 'invalid_user_code');
  });

  test('an unknown device code, or another client’s, answers invalid_grant; a missing one invalid_request', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    const invalid = {
      error: 'invalid_grant',
      description: 'The device code is invalid, was issued to another client or was already used',
    };
    await refused(await poll(as, tv.client.id, 'not-a-device-code'), invalid);
    await refused(await poll(as, kiosk.client.id, codes.device_code, { secret: kiosk.secret as string }), invalid);
    const missing = await postForm(t, '/oauth/token', { grant_type: DEVICE_GRANT, client_id: tv.client.id });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.json, {
      error: 'invalid_request',
      error_description: 'device_code is required',
      request_id: missing.headers['x-request-id'],
    });
  });

  test('a client not allowed the grant is refused with unauthorized_client at both endpoints', async () => {
    const response = await oauth.deviceAuthorizationRequest(
      as,
      { client_id: plain.client.id },
      oauth.None(),
      { scope: 'openid' },
      insecure,
    );
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      error: 'unauthorized_client',
      error_description: 'This client may not use the device authorization grant',
      request_id: response.headers.get('x-request-id'),
    });
    // An administrator turns the grant off after a device got its codes: its polls are refused from then on.
    const later = await makeClient(t.sql, t.secrets.clientSecret, { kind: 'native', deviceAuthorizationGrant: true });
    const codes = await requestCodes(as, later.client.id, { scope: 'openid' });
    await t.sql`update oauth_clients set device_authorization_grant = false where id = ${later.client.id}`;
    t.clock.advance(6); // past the client cache (src/oauth/client-directory.ts CACHE_SECONDS)
    const polled = await postForm(t, '/oauth/token', {
      grant_type: DEVICE_GRANT,
      client_id: later.client.id,
      device_code: codes.device_code,
    });
    assert.equal(polled.status, 400);
    assert.equal((polled.json as { error: string }).error, 'unauthorized_client');
  });

  test('a confidential client authenticates as at the token endpoint: a wrong secret is invalid_client', async () => {
    const wrong = await oauth.deviceAuthorizationRequest(
      as,
      { client_id: kiosk.client.id },
      oauth.ClientSecretPost('wrong-secret'),
      { scope: 'openid' },
      insecure,
    );
    assert.equal(wrong.status, 401);
    assert.deepEqual(await wrong.json(), {
      error: 'invalid_client',
      error_description: 'Unknown client or wrong credentials',
      request_id: wrong.headers.get('x-request-id'),
    });
    const codes = await requestCodes(
      as,
      kiosk.client.id,
      { scope: 'openid email' },
      { secret: kiosk.secret as string },
    );
    await decide(t, cookie, codes.user_code, 'approve');
    const secret = kiosk.secret as string;
    await refused(await poll(as, kiosk.client.id, codes.device_code, { secret: 'wrong-secret' }), {
      status: 401,
      error: 'invalid_client',
      description: 'Unknown client or wrong credentials',
    });
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      { client_id: kiosk.client.id },
      await poll(as, kiosk.client.id, codes.device_code, { secret }),
    );
    assert.equal(tokens.scope, 'openid email');
    assert.equal(tokens.refresh_token, undefined, 'no offline_access, no refresh token');
  });

  test('scopes and resources are checked as at the authorization endpoint: invalid_scope, invalid_target', async () => {
    const envelope = async (parameters: Record<string, string>) => {
      const response = await oauth.deviceAuthorizationRequest(
        as,
        { client_id: tv.client.id },
        oauth.None(),
        parameters,
        insecure,
      );
      return { status: response.status, json: await response.json(), id: response.headers.get('x-request-id') };
    };
    const scope = await envelope({ scope: 'openid email' });
    assert.deepEqual(scope.json, {
      error: 'invalid_scope',
      error_description: 'The client may not request scope email',
      request_id: scope.id,
    });
    const target = await envelope({ scope: 'openid', resource: 'https://elsewhere.acme.test/' });
    assert.deepEqual(target.json, {
      error: 'invalid_target',
      error_description: 'resource is not a registered resource this client may use',
      request_id: target.id,
    });
    assert.equal(target.status, 400);
  });

  test('with a resource, the access token is for that API with its scope', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid photos:read', resource: photos.audience });
    const view = await fetch(`${t.issuer}/oauth/device/lookup`, {
      method: 'POST',
      headers: { cookie, origin: t.issuer, 'content-type': 'application/json' },
      body: JSON.stringify({ user_code: codes.user_code }),
    });
    assert.deepEqual(((await view.json()) as { resource_names: unknown }).resource_names, {
      openid: [],
      'photos:read': ['Test API'],
    });
    await decide(t, cookie, codes.user_code, 'approve');
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      { client_id: tv.client.id },
      await poll(as, tv.client.id, codes.device_code),
    );
    const claims = decodeJwt(tokens.access_token);
    assert.equal(claims.aud, photos.audience);
    assert.equal(claims.scope, 'openid photos:read');
  });

  test('a resource the request did not name is invalid_target, and leaves the code to redeem', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    await decide(t, cookie, codes.user_code, 'approve');
    const other = await postForm(t, '/oauth/token', {
      grant_type: DEVICE_GRANT,
      client_id: tv.client.id,
      device_code: codes.device_code,
      resource: photos.audience,
    });
    assert.deepEqual(other.json, {
      error: 'invalid_target',
      error_description: 'resource was not part of the device authorization request',
      request_id: other.headers['x-request-id'],
    });
    t.clock.advance(5);
    const tokens = await oauth.processDeviceCodeResponse(
      as,
      { client_id: tv.client.id },
      await poll(as, tv.client.id, codes.device_code),
    );
    assert.ok(tokens.access_token);
  });

  test('a client registered with dpop_bound_access_tokens gets nothing without a proof: invalid_dpop_proof', async () => {
    const bound = await makeClient(t.sql, t.secrets.clientSecret, {
      kind: 'native',
      redirectUris: [],
      deviceAuthorizationGrant: true,
      dpopBoundAccessTokens: true,
    });
    const codes = await requestCodes(as, bound.client.id, { scope: 'openid' });
    await refused(await poll(as, bound.client.id, codes.device_code), {
      error: 'invalid_dpop_proof',
      description: 'This client must send a DPoP proof with every token request (dpop_bound_access_tokens)',
    });
  });

  test('of two concurrent polls of an approved code exactly one gets tokens', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    await decide(t, cookie, codes.user_code, 'approve');
    const answers = await Promise.all([0, 1, 2].map(() => poll(as, tv.client.id, codes.device_code)));
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [200, 400, 400]);
    for (const a of answers.filter((a) => a.status === 400))
      assert.equal(((await a.json()) as { error: string }).error, 'invalid_grant');
  });

  test('a sign-in that ended after approving redeems nothing: invalid_grant', async () => {
    const other = await makeSession(t, sub);
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    await decide(t, other.cookie, codes.user_code, 'approve');
    await t.sql`update sessions set revoked_at = ${t.clock.now()} where id = ${other.session.id}`;
    await refused(await poll(as, tv.client.id, codes.device_code), {
      error: 'invalid_grant',
      description: 'The device code was already used, or the sign-in that approved it has ended',
    });
  });

  test('every step is audited, without either code', async () => {
    const codes = await requestCodes(as, tv.client.id, { scope: 'openid' });
    await decide(t, cookie, codes.user_code, 'approve');
    await oauth.processDeviceCodeResponse(
      as,
      { client_id: tv.client.id },
      await poll(as, tv.client.id, codes.device_code),
    );
    const denied = await requestCodes(as, tv.client.id, { scope: 'openid' });
    await decide(t, cookie, denied.user_code, 'deny');
    const records = await t.sql`select event, actor, subject, details from audit_events
                                where event like 'oauth.device%' order by id`;
    const events = new Set(records.map((r) => r.event));
    for (const event of [
      'oauth.device_authorization_requested',
      'oauth.device_authorization_approved',
      'oauth.device_authorization_denied',
      'oauth.device_code_redeemed',
    ])
      assert.ok(events.has(event), `${event} recorded`);
    const text = JSON.stringify(records);
    for (const secret of [codes.device_code, codes.user_code, denied.device_code, denied.user_code])
      assert.ok(!text.includes(secret) && !text.includes(secret.replace('-', '')), 'no code in the audit');
    const approved = records.find((r) => r.event === 'oauth.device_authorization_approved');
    assert.equal(approved?.actor, sub);
    assert.equal(approved?.subject, tv.client.id);
  });
});
