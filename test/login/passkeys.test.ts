// Passkeys over HTTP (issue 20) with a software authenticator that makes real keys, attestation objects and
// signatures: registration (recent authentication, options, storage), sign-in with and without a subject, and
// every refusal the issue names, each leaving credentials, counters and sessions as they were.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { LightMyRequestResponse } from 'fastify';
import { runHousekeeping } from '../../src/housekeeping.ts';
import { cookieFrom, JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { startMailbox } from '../helpers/mailbox.ts';
import { makeSession } from '../helpers/oauth-fixtures.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const ORIGIN = 'http://localhost:8080';

const post = (url: string, payload: object, cookie = '') =>
  t.app.inject({ method: 'POST', url, headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) }, payload });

const assertError = (r: LightMyRequestResponse, status: number, error: string, description?: string) => {
  assert.equal(r.statusCode, status, r.body);
  const body = r.json() as Record<string, unknown>;
  assert.equal(body.error, error);
  assert.equal(body.request_id, r.headers['x-request-id']);
  assert.equal(typeof body.error_description, 'string');
  if (description !== undefined) assert.equal(body.error_description, description);
};

/** A person with a password and TOTP, a fresh session, and one passkey registered through the API. */
async function personWithPasskey(options: { backupEligible?: boolean; state?: 'active' | 'suspended' } = {}) {
  const person = await makeAccount(t.sql, t.secrets, config);
  const { cookie } = await makeSession(t, person.sub);
  const authenticator = new SoftAuthenticator({ origin: ORIGIN, backupEligible: options.backupEligible ?? false });
  const started = await post('/account/passkeys/options', {}, cookie);
  assert.equal(started.statusCode, 200, started.body);
  const { challenge_id, options: creation } = started.json();
  const added = await post(
    '/account/passkeys',
    { challenge_id, name: 'Laptop', credential: authenticator.register(creation) },
    cookie,
  );
  assert.equal(added.statusCode, 201, added.body);
  if (options.state) await t.sql`update identities set state = ${options.state} where id = ${person.sub}`;
  return { person, cookie, authenticator, methodId: (added.json() as { id: string }).id };
}

async function signInOptions(subject?: string, cookie = '') {
  const r = await post('/auth/passkey/options', subject === undefined ? {} : { subject }, cookie);
  assert.equal(r.statusCode, 200, r.body);
  return {
    ...(r.json() as { challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }),
    cookie: cookieFrom(r, 'gatehouse_login'),
  };
}

const verify = (challengeId: string, credential: object, cookie: string) =>
  post('/auth/passkey/verify', { challenge_id: challengeId, credential }, cookie);

/** What a refused attempt must leave unchanged. */
const snapshot = async () => ({
  credentials: await t.sql`select method_id, sign_count, backup_state from passkey_credentials order by method_id`,
  sessions: (await t.sql`select count(*)::int as n from sessions`)[0]?.n,
  methods: (await t.sql`select count(*)::int as n from sign_in_methods`)[0]?.n,
});

const auditCount = async (event: string, subject: string) =>
  (await t.sql`select count(*)::int as n from audit_events where event = ${event} and subject = ${subject}`)[0]?.n;

describe('POST /account/passkeys/options and POST /account/passkeys', () => {
  test('offers creation options for the organization with the identity’s stable opaque user handle', async () => {
    const { person, cookie } = await personWithPasskey();
    const first = (await post('/account/passkeys/options', {}, cookie)).json();
    const second = (await post('/account/passkeys/options', {}, cookie)).json();
    const o = first.options;
    assert.deepEqual(o.rp, { name: 'Acme Robotics', id: 'localhost' });
    assert.equal(o.user.id, second.options.user.id);
    assert.notEqual(o.challenge, second.options.challenge);
    assert.ok(!o.user.id.includes(person.sub) && Buffer.from(o.user.id, 'base64url').length === 32);
    assert.equal(o.user.name, person.email);
    assert.equal(o.attestation, 'none');
    assert.deepEqual(o.authenticatorSelection, {
      residentKey: 'preferred',
      userVerification: 'required',
      requireResidentKey: false,
    });
    assert.equal(o.excludeCredentials.length, 1);
    assert.equal(first.expires_in, 300);
  });

  test('stores the credential with its counter, transports, backup flags and AAGUID, listed by GET /account/passkeys', async () => {
    const { person, cookie, methodId } = await personWithPasskey();
    const listed = await t.app.inject({ method: 'GET', url: '/account/passkeys', headers: { cookie } });
    assert.equal(listed.statusCode, 200);
    const [passkey] = listed.json().passkeys;
    assert.equal(passkey.id, methodId);
    assert.equal(passkey.name, 'Laptop');
    assert.deepEqual(passkey.transports, ['internal']);
    assert.equal(passkey.synced, false);
    assert.equal(passkey.aaguid, '00000000-0000-0000-0000-000000000000');
    const [row] =
      await t.sql`select sign_count, backup_eligible, backup_state from passkey_credentials where identity_id = ${person.sub}`;
    assert.deepEqual({ ...row }, { sign_count: '0', backup_eligible: false, backup_state: false });
    assert.equal(await auditCount('method.attached', person.sub), 1);
  });

  test('refuses options to a session that signed in long ago with reauthentication_required, and accepts the password', async () => {
    const person = await makeAccount(t.sql, t.secrets, config);
    const { cookie } = await makeSession(t, person.sub, { authTime: new Date(t.clock.now().getTime() - 3600_000) });
    assertError(await post('/account/passkeys/options', {}, cookie), 403, 'reauthentication_required');
    assertError(
      await post('/account/passkeys/options', { password: 'wrong one' }, cookie),
      403,
      'reauthentication_failed',
    );
    assert.equal((await post('/account/passkeys/options', { password: person.password }, cookie)).statusCode, 200);
  });

  test('refuses a credential another identity registered with method_conflict, audited, storing nothing', async () => {
    const { authenticator } = await personWithPasskey();
    const other = await makeAccount(t.sql, t.secrets, config);
    const { cookie } = await makeSession(t, other.sub);
    const { challenge_id, options } = (await post('/account/passkeys/options', {}, cookie)).json();
    const before = await snapshot();
    const r = await post(
      '/account/passkeys',
      { challenge_id, credential: authenticator.register(options, authenticator.credentials[0]) },
      cookie,
    );
    assertError(r, 409, 'method_conflict');
    assert.deepEqual(await snapshot(), before);
    assert.equal(await auditCount('method.attach_refused', other.sub), 1);
  });

  test('refuses an answer to a spent or foreign challenge with invalid_passkey_registration', async () => {
    const { cookie, authenticator } = await personWithPasskey();
    const { challenge_id, options } = (await post('/account/passkeys/options', {}, cookie)).json();
    const other = await makeSession(t, (await makeAccount(t.sql, t.secrets, config)).sub);
    const before = await snapshot();
    const credential = authenticator.register(options);
    assertError(
      await post('/account/passkeys', { challenge_id, credential }, other.cookie),
      400,
      'invalid_passkey_registration',
    );
    assert.deepEqual(await snapshot(), before);
    // Another session cannot spend it: its owner still can, once.
    assert.equal((await post('/account/passkeys', { challenge_id, credential }, cookie)).statusCode, 201);
    const after = await snapshot();
    assertError(
      await post('/account/passkeys', { challenge_id, credential }, cookie),
      400,
      'invalid_passkey_registration',
    );
    assert.deepEqual(await snapshot(), after);
  });

  test('refuses malformed base64url with a 400 envelope naming the field, storing nothing', async () => {
    const { cookie, authenticator } = await personWithPasskey();
    const { challenge_id, options } = (await post('/account/passkeys/options', {}, cookie)).json();
    const credential = authenticator.register(options);
    const before = await snapshot();
    const r = await post(
      '/account/passkeys',
      {
        challenge_id,
        credential: { ...credential, response: { ...credential.response, clientDataJSON: 'not+base64/url=' } },
      },
      cookie,
    );
    assertError(r, 400, 'invalid_request');
    assert.equal(r.json().fields[0].path, 'body.credential.response.clientDataJSON');
    assert.deepEqual(await snapshot(), before);
  });
});

describe('POST /auth/passkey/options and POST /auth/passkey/verify', () => {
  test('signs in usernameless at aal2 with amr hwk and user, a full session', async () => {
    const { person, authenticator } = await personWithPasskey();
    const started = await signInOptions();
    assert.equal(started.options.allowCredentials, undefined);
    assert.equal(started.options.userVerification, 'required');
    assert.equal(started.options.rpId, 'localhost');
    const r = await verify(started.challenge_id, authenticator.assert(started.options), started.cookie);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json(), {
      aal: 'aal2',
      amr: ['hwk', 'user'],
      enrollment_required: false,
      second_factor_required: false,
    });
    const session = cookieFrom(r, 'gatehouse_session');
    const profile = await t.app.inject({ method: 'GET', url: '/account/profile', headers: { cookie: session } });
    assert.equal(profile.json().id ?? person.sub, person.sub);
    assert.equal(profile.statusCode, 200);
    const [row] = await t.sql`select sign_count from passkey_credentials where identity_id = ${person.sub}`;
    assert.equal(row?.sign_count, '1');
    assert.equal(await auditCount('signin.succeeded', person.sub), 1);
  });

  test('gives a passkey-only account without TOTP a full session, which passes the admin guard for an IAL2 owner', async () => {
    const { person, authenticator } = await personWithPasskey();
    await t.sql`delete from sign_in_methods where identity_id = ${person.sub} and kind = 'password'`;
    await t.sql`delete from totp_credentials where identity_id = ${person.sub}`;
    await t.sql`update identities set assurance = 'ial2' where id = ${person.sub}`;
    await t.sql`insert into organizations (id, name) values (${config.organization.id}, 'Acme') on conflict do nothing`;
    await t.sql`insert into memberships (organization_id, identity_id, roles)
                values (${config.organization.id}, ${person.sub}, ${['owner']})`;
    const started = await signInOptions();
    const r = await verify(started.challenge_id, authenticator.assert(started.options), started.cookie);
    assert.deepEqual(r.json(), {
      aal: 'aal2',
      amr: ['hwk', 'user'],
      enrollment_required: false,
      second_factor_required: false,
    });
    const cookie = cookieFrom(r, 'gatehouse_session');
    const admin = await t.app.inject({ method: 'GET', url: '/admin/applications', headers: { cookie } });
    assert.equal(admin.statusCode, 200, admin.body);
  });

  test('names a synced passkey swk', async () => {
    const synced = await personWithPasskey({ backupEligible: true });
    const started = await signInOptions();
    const r = await verify(started.challenge_id, synced.authenticator.assert(started.options), started.cookie);
    assert.deepEqual(r.json(), {
      aal: 'aal2',
      amr: ['swk', 'user'],
      enrollment_required: false,
      second_factor_required: false,
    });
  });

  test('refuses an assertion without user verification with user_verification_required: no session, audited', async () => {
    // The security key without its PIN: the options asked for "required", the UV flag says it did not happen.
    const plain = await personWithPasskey();
    const noUv = new SoftAuthenticator({ origin: ORIGIN, userVerified: false });
    noUv.credentials.push(...plain.authenticator.credentials);
    const started = await signInOptions(plain.person.email);
    assert.equal(started.options.userVerification, 'required');
    const r = await verify(started.challenge_id, noUv.assert(started.options), started.cookie);
    assert.equal(r.statusCode, 401);
    assert.deepEqual(r.json(), {
      error: 'user_verification_required',
      error_description: 'The passkey did not verify you with a PIN or biometric; this sign-in requires it.',
      request_id: r.headers['x-request-id'],
    });
    assert.equal(cookieFrom(r, 'gatehouse_session'), '');
    const [failed] = await t.sql<{ details: Record<string, unknown> }[]>`
      select details from audit_events where event = 'signin.failed' and subject = ${plain.person.sub}
      order by id desc limit 1`;
    assert.equal(failed?.details.reason, 'user_verification');
    // The challenge is spent: the same answer again is an unknown transaction, not a second chance.
    const again = await verify(started.challenge_id, noUv.assert(started.options), started.cookie);
    assertError(again, 400, 'invalid_login_transaction');
  });

  test('with a subject lists that person’s credentials, and a stable decoy for an unknown subject', async () => {
    const { person, authenticator } = await personWithPasskey();
    const known = await signInOptions(person.email);
    assert.deepEqual(
      known.options.allowCredentials?.map((c: { id: string }) => c.id),
      [authenticator.credentials[0]?.id.toString('base64url')],
    );
    const unknown1 = await signInOptions('nobody-here@acme-robotics.dev');
    const unknown2 = await signInOptions('Nobody-Here@acme-robotics.dev');
    assert.equal(unknown1.options.allowCredentials?.length, 1);
    assert.deepEqual(unknown1.options.allowCredentials, unknown2.options.allowCredentials);
    const r = await verify(known.challenge_id, authenticator.assert(known.options), known.cookie);
    assert.equal(r.statusCode, 200);
  });

  test('refuses a replayed assertion with invalid_login_transaction, changing nothing', async () => {
    const { authenticator } = await personWithPasskey();
    const started = await signInOptions();
    const assertion = authenticator.assert(started.options);
    assert.equal((await verify(started.challenge_id, assertion, started.cookie)).statusCode, 200);
    const before = await snapshot();
    assertError(await verify(started.challenge_id, assertion, started.cookie), 400, 'invalid_login_transaction');
    // The same assertion against a fresh challenge fails its signature check over the other challenge.
    const fresh = await signInOptions();
    assertError(await verify(fresh.challenge_id, assertion, fresh.cookie), 401, 'invalid_credentials');
    assert.deepEqual(await snapshot(), before);
  });

  test('refuses a challenge from another login transaction with invalid_login_transaction, changing nothing', async () => {
    const { authenticator } = await personWithPasskey();
    const mine = await signInOptions();
    const theirs = await signInOptions();
    const before = await snapshot();
    const r = await verify(mine.challenge_id, authenticator.assert(mine.options), theirs.cookie);
    assertError(r, 400, 'invalid_login_transaction');
    assertError(
      await verify(mine.challenge_id, authenticator.assert(mine.options), ''),
      400,
      'invalid_login_transaction',
    );
    assert.deepEqual(await snapshot(), before);
  });

  test('refuses an assertion for another RP ID or from another origin with invalid_credentials', async () => {
    const { person, authenticator } = await personWithPasskey();
    for (const claim of [
      { rpId: 'evil.localhost' },
      { origin: 'http://localhost:9999' },
      { origin: 'https://evil.dev' },
    ]) {
      const started = await signInOptions();
      const before = await snapshot();
      const r = await verify(started.challenge_id, authenticator.assert(started.options, claim), started.cookie);
      assertError(r, 401, 'invalid_credentials', 'The sign-in details are not correct.');
      assert.deepEqual(await snapshot(), before);
    }
    assert.equal(await auditCount('signin.failed', person.sub), 3);
  });

  test('refuses a counter that did not grow, audits passkey.counter_regression, and keeps the stored counter', async () => {
    const { person, authenticator } = await personWithPasskey();
    let started = await signInOptions();
    await verify(started.challenge_id, authenticator.assert(started.options, { signCount: 7 }), started.cookie);
    const before = await snapshot();
    for (const signCount of [7, 3]) {
      started = await signInOptions();
      const r = await verify(
        started.challenge_id,
        authenticator.assert(started.options, { signCount }),
        started.cookie,
      );
      assertError(r, 401, 'invalid_credentials');
    }
    assert.deepEqual(await snapshot(), before);
    const [row] = await t.sql`select sign_count from passkey_credentials where identity_id = ${person.sub}`;
    assert.equal(row?.sign_count, '7');
    assert.equal(await auditCount('passkey.counter_regression', person.sub), 2);
  });

  test('refuses another identity’s credential for a challenge issued to a subject, audited', async () => {
    const alice = await personWithPasskey();
    const bob = await personWithPasskey();
    const started = await signInOptions(alice.person.email);
    const before = await snapshot();
    const r = await verify(started.challenge_id, bob.authenticator.assert(started.options), started.cookie);
    assertError(r, 401, 'invalid_credentials');
    assert.deepEqual(await snapshot(), before);
    const [record] = await t.sql<{ details: Record<string, unknown> }[]>`
      select details from audit_events where event = 'signin.failed' and subject = ${alice.person.sub}`;
    assert.deepEqual(record?.details, {
      method: 'passkey',
      reason: 'other_identity',
      credential_owner: bob.person.sub,
    });
  });

  test('refuses an assertion whose user handle names another identity', async () => {
    const alice = await personWithPasskey();
    const bob = await personWithPasskey();
    const started = await signInOptions();
    const assertion = alice.authenticator.assert(started.options);
    assertion.response.userHandle = bob.authenticator.credentials[0]?.userHandle;
    assertError(await verify(started.challenge_id, assertion, started.cookie), 401, 'invalid_credentials');
  });

  test('refuses a suspended identity with invalid_credentials, changing nothing', async () => {
    const { person, authenticator } = await personWithPasskey({ state: 'suspended' });
    const started = await signInOptions();
    const before = await snapshot();
    assertError(
      await verify(started.challenge_id, authenticator.assert(started.options), started.cookie),
      401,
      'invalid_credentials',
    );
    assert.deepEqual(await snapshot(), before);
    const [record] = await t.sql<{ details: Record<string, unknown> }[]>`
      select details from audit_events where event = 'signin.failed' and subject = ${person.sub}`;
    assert.deepEqual(record?.details, { method: 'passkey', reason: 'identity_state' });
  });

  test('refuses a challenge older than 5 minutes with invalid_login_transaction', async () => {
    const { authenticator } = await personWithPasskey();
    const started = await signInOptions();
    t.clock.advance(301);
    const before = await snapshot();
    assertError(
      await verify(started.challenge_id, authenticator.assert(started.options), started.cookie),
      400,
      'invalid_login_transaction',
    );
    assert.deepEqual(await snapshot(), before);
    // Housekeeping then deletes it with the other expired challenges.
    assert.ok((await runHousekeeping(t.sql, t.clock.now())).passkeyChallenges >= 1);
    const [left] = await t.sql`select count(*)::int as n from passkey_challenges where id = ${started.challenge_id}`;
    assert.equal(left?.n, 0);
  });

  test('refuses malformed base64url fields with a 400 envelope before any lookup', async () => {
    const { authenticator } = await personWithPasskey();
    const started = await signInOptions();
    const assertion = authenticator.assert(started.options);
    const before = await snapshot();
    for (const broken of [
      { ...assertion, id: 'a b' },
      { ...assertion, response: { ...assertion.response, signature: '====' } },
      { ...assertion, response: { ...assertion.response, authenticatorData: 'AAAA+/' } },
    ]) {
      const r = await verify(started.challenge_id, broken, started.cookie);
      assertError(r, 400, 'invalid_request');
      assert.ok(Array.isArray(r.json().fields));
    }
    assert.deepEqual(await snapshot(), before);
    // The challenge was not spent by the malformed requests.
    assert.equal((await verify(started.challenge_id, assertion, started.cookie)).statusCode, 200);
  });
});

describe('GET, PATCH and DELETE /account/passkeys/:id', () => {
  test('renames a passkey', async () => {
    const { cookie, methodId } = await personWithPasskey();
    const r = await t.app.inject({
      method: 'PATCH',
      url: `/account/passkeys/${methodId}`,
      headers: { ...JSON_HEADERS, cookie },
      payload: { name: 'Work phone' },
    });
    assert.equal(r.statusCode, 200, r.body);
    assert.equal(r.json().name, 'Work phone');
  });

  test('removes a passkey while the password remains, and refuses the last sign-in method', async () => {
    const { person, cookie, methodId } = await personWithPasskey();
    const del = (id: string, payload: Record<string, string> = {}, c = cookie) =>
      t.app.inject({
        method: 'DELETE',
        url: `/account/passkeys/${id}`,
        headers: { ...JSON_HEADERS, cookie: c },
        payload,
      });
    assert.equal((await del(methodId)).statusCode, 204);
    assert.equal(await auditCount('method.removed', person.sub), 1);
    assertError(await del(methodId), 404, 'not_found');

    // A passkey-only identity: its passkey is its last method.
    const lone = await personWithPasskey();
    await t.sql`delete from sign_in_methods where identity_id = ${lone.person.sub} and kind = 'password'`;
    const before = await snapshot();
    assertError(await del(lone.methodId, {}, lone.cookie), 409, 'last_sign_in_method');
    assert.deepEqual(await snapshot(), before);
  });

  test('refuses removal without recent authentication, and another person’s passkey is not found', async () => {
    const { person, methodId } = await personWithPasskey();
    const stale = await makeSession(t, person.sub, { authTime: new Date(t.clock.now().getTime() - 3600_000) });
    const del = (payload: Record<string, string>, cookie: string) =>
      t.app.inject({
        method: 'DELETE',
        url: `/account/passkeys/${methodId}`,
        headers: { ...JSON_HEADERS, cookie },
        payload,
      });
    const stranger = await makeSession(t, (await makeAccount(t.sql, t.secrets, config)).sub);
    const before = await snapshot();
    assertError(await del({}, stale.cookie), 403, 'reauthentication_required');
    assertError(await del({}, stranger.cookie), 404, 'not_found');
    assert.deepEqual(await snapshot(), before);
    assert.equal((await del({ password: person.password }, stale.cookie)).statusCode, 204);
  });
});

describe('passkeys configuration', () => {
  test('GET /auth/providers reports passkeys from configuration, and disabled passkeys refuse with passkeys_disabled', async () => {
    assert.equal((await t.app.inject({ method: 'GET', url: '/auth/providers' })).json().passkeys, true);
    const off = await startTestApp({ config: makeConfig({ ...config, passkeys: { enabled: false } }) });
    assert.equal((await off.app.inject({ method: 'GET', url: '/auth/providers' })).json().passkeys, false);
    const r = await off.app.inject({
      method: 'POST',
      url: '/auth/passkey/options',
      headers: JSON_HEADERS,
      payload: {},
    });
    assertError(r, 403, 'passkeys_disabled', 'Passkeys are not enabled on this service.');
  });
});
