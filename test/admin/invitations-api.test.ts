// POST /admin/identities: an owner invites a person by address and roles. The answer carries a one-use enrollment
// link (shown once) unless delivery works, in which case the link goes out through the outbox; the person sets a
// password with it and enrolls TOTP. Every invitation is audited; a taken address is 409, bad input 400.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Config } from '../../src/config/schema.ts';
import type { Sub } from '../../src/identity/ids.ts';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { adminCaller, assertAdminError, auditOf } from '../helpers/admin-api.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeConfig } from '../helpers/config.ts';
import { devMailboxWorker } from '../helpers/dev-mailbox.ts';
import { makeAdmin, makeClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { userTokens } from '../helpers/oauth-flow.ts';

const PASSWORD = 'an invited person chose this 8812';

async function inviting(config: Config = makeConfig()) {
  const t = await startTestApp({ config });
  const admin = await makeAdmin(t);
  return { t, admin, call: adminCaller(t, admin.cookie) };
}

/** POST /auth/enroll with the token from a link's fragment. */
function enroll(t: TestApp, url: string, password = PASSWORD) {
  const token = new URLSearchParams(new URL(url).hash.slice(1)).get('token') ?? '';
  return t.app.inject({ method: 'POST', url: '/auth/enroll', headers: JSON_HEADERS, payload: { token, password } });
}

async function stateOf(t: TestApp) {
  const [counts] = await t.sql<{ identities: number; audit: number; outbox: number }[]>`
    select (select count(*) from identities)::int as identities,
           (select count(*) from audit_events)::int + (select count(*) from audit_pending)::int as audit,
           (select count(*) from outbox_messages)::int as outbox`;
  return counts;
}

/** Runs the delivery worker once into the dev mailbox and returns the one message it sent, as GET /admin/mailbox has it. */
async function deliverOne(t: TestApp, call: ReturnType<typeof adminCaller>) {
  const notices: string[] = [];
  assert.equal((await devMailboxWorker(t, (line) => notices.push(line)).runOnce()).sent, 1);
  const mailbox = await call('GET', '/admin/mailbox');
  const [message] = mailbox.json.messages as {
    template: string;
    to: string;
    subject: string;
    text: string;
    link: string;
  }[];
  assert.ok(message);
  return { notices, message };
}

describe('POST /admin/identities', () => {
  test('at a loopback issuer (development) invites name@localhost, as sign-up takes it', async () => {
    const { call } = await inviting();
    const r = await call('POST', '/admin/identities', { email: 'tester@localhost', roles: ['member'] });
    assert.equal(r.status, 201, JSON.stringify(r.json));
  });

  test('without delivery: creates the active identity with its address and roles and shows the link once', async () => {
    const { t, admin, call } = await inviting();
    const r = await call('POST', '/admin/identities', {
      email: 'Ada.Lovelace@Acme-Robotics.dev',
      display_name: 'Ada Lovelace',
      roles: ['member', 'engineering'],
    });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.equal(r.headers['cache-control'], 'no-store');
    const enrollment = r.json.enrollment as { url: string; expires_at: string; delivery: string };
    const sub = String(r.json.sub);
    assert.match(sub, /^usr_/);
    const expiresAt = new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString();
    assert.deepEqual(r.json, {
      sub,
      email: 'Ada.Lovelace@Acme-Robotics.dev',
      display_name: 'Ada Lovelace',
      organization_id: 'acme',
      roles: ['member', 'engineering'],
      state: 'active',
      invited: true,
      enrollment: { delivery: 'shown', expires_at: expiresAt, url: enrollment.url },
    });
    assert.match(enrollment.url, /^http:\/\/localhost:8080\/enroll\?return_to=%2Fsettings#token=[\w-]{43}$/);

    const detail = await call('GET', `/admin/identities/${sub}`);
    assert.equal(detail.json.state, 'active');
    assert.equal(detail.json.invited, true, 'an invitee has not accepted yet');
    // By address and by name: the two kinds of search are different statements (identity/directory-store.ts).
    const listed = async () => {
      const seen = await Promise.all(
        ['ada.lovelace', 'Lovelace', ''].map(
          async (q) =>
            ((await call('GET', `/admin/identities?q=${q}`)).json.identities as { invited: boolean }[])[0]?.invited,
        ),
      );
      assert.equal(new Set(seen).size, 1, `every search says the same: ${seen.join(', ')}`);
      return seen[0];
    };
    assert.equal(await listed(), true, 'the listing says invited too');
    assert.equal(detail.json.ial, 'ial1');
    assert.deepEqual(
      (detail.json.emails as { address: string; primary: boolean; verified: boolean }[]).map((e) => ({
        address: e.address,
        primary: e.primary,
        verified: e.verified,
      })),
      [{ address: 'Ada.Lovelace@Acme-Robotics.dev', primary: true, verified: false }],
    );
    assert.deepEqual(detail.json.sign_in_methods, []);
    assert.deepEqual(
      (detail.json.memberships as { organization_id: string; roles: string[] }[]).map((m) => [
        m.organization_id,
        m.roles,
      ]),
      [['acme', ['member', 'engineering']]],
    );
    assert.deepEqual(await auditOf(t, sub), [
      {
        event: 'identity.invited',
        actor: admin.sub,
        details: { organization_id: 'acme', roles: 'member engineering', delivery: 'shown' },
      },
    ]);
    assert.equal((await stateOf(t))?.outbox, 0, 'nothing is queued when delivery is not configured');
    assert.ok(!t.logs.text.includes(enrollment.url.split('#token=')[1] ?? '-'), 'the token never reaches the log');

    // The link works once: a password, then an enrollment-only session that must enroll TOTP.
    const first = await enroll(t, enrollment.url);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), {
      aal: 'aal1',
      amr: ['pwd'],
      enrollment_required: true,
      second_factor_required: false,
    });
    assert.equal(await listed(), false, 'using the link is accepting the invitation');
    assert.equal((await call('GET', `/admin/identities/${sub}`)).json.invited, false);
    const second = await enroll(t, enrollment.url, 'someone else tries this 5521');
    assert.equal(second.statusCode, 400);
    assert.deepEqual(second.json(), {
      error: 'invalid_enrollment_token',
      error_description: 'The enrollment link is invalid, expired or already used.',
      request_id: second.headers['x-request-id'],
    });
  });

  test('an unused link stops working after seven days', async () => {
    const { t, call } = await inviting();
    const r = await call('POST', '/admin/identities', { email: 'late@acme-robotics.dev', roles: ['member'] });
    assert.equal(r.status, 201);
    assert.equal(r.json.display_name, 'late@acme-robotics.dev', 'without a name, the address stands in');
    t.clock.advance(7 * 86_400 + 1);
    const late = await enroll(t, (r.json.enrollment as { url: string }).url);
    assert.equal(late.statusCode, 400);
    assert.equal(late.json().error, 'invalid_enrollment_token');
  });

  test('with delivery: the link goes out as an invitation message through the outbox and is not in the answer', async () => {
    const config = makeConfig({ organization: { name: 'Acme Robotics' }, delivery: { kind: 'dev_mailbox' } });
    const { t, call } = await inviting(config);
    const r = await call('POST', '/admin/identities', { email: 'grace@acme-robotics.dev', roles: ['admin'] });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    assert.deepEqual(r.json.enrollment, {
      delivery: 'dev_mailbox',
      expires_at: new Date(t.clock.now().getTime() + 7 * 86_400_000).toISOString(),
    });
    assert.equal((await auditOf(t, String(r.json.sub)))[0]?.details.delivery, 'dev_mailbox');

    const { notices, message } = await deliverOne(t, call);
    assert.deepEqual(
      { template: message.template, to: message.to, subject: message.subject },
      { template: 'invitation', to: 'grace@acme-robotics.dev', subject: 'You are invited to Acme Robotics' },
    );
    assert.match(message.text, /An administrator of Acme Robotics created an account for you/);
    assert.match(message.link, /^http:\/\/localhost:8080\/enroll\?return_to=%2Fsettings#token=[\w-]{43}$/);
    assert.deepEqual(notices, [
      `mailbox: "You are invited to Acme Robotics" for grace@acme-robotics.dev: ${message.link}`,
    ]);
    const used = await enroll(t, message.link);
    assert.equal(used.statusCode, 200, used.body);
  });

  test('enrolling through the mailed invitation verifies the address: userinfo says email_verified true', async () => {
    const config = makeConfig({ delivery: { kind: 'dev_mailbox' } });
    const { t, call } = await inviting(config);
    const r = await call('POST', '/admin/identities', { email: 'Grace@Acme-Robotics.dev', roles: ['member'] });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    const sub = String(r.json.sub) as Sub;
    const { message } = await deliverOne(t, call);
    const used = await enroll(t, message.link);
    assert.equal(used.statusCode, 200, used.body);

    const detail = await call('GET', `/admin/identities/${sub}`);
    assert.deepEqual(
      (detail.json.emails as { address: string; verified: boolean }[]).map((e) => [e.address, e.verified]),
      [['Grace@Acme-Robotics.dev', true]],
    );
    const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret, {
      scopes: ['openid', 'email'],
      firstParty: true,
    });
    const { cookie } = await makeSession(t, sub);
    const tokens = await userTokens(t, { client, secret, cookie, scope: 'openid email' });
    const userinfo = await t.app.inject({
      method: 'GET',
      url: '/oauth/userinfo',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    assert.deepEqual(userinfo.json(), { sub, email: 'Grace@Acme-Robotics.dev', email_verified: true });
  });

  test('a link shown to the administrator proves no mailbox: the address stays unverified after enrolling', async () => {
    const { t, call } = await inviting();
    const r = await call('POST', '/admin/identities', { email: 'shown@acme-robotics.dev', roles: ['member'] });
    assert.equal(r.status, 201, JSON.stringify(r.json));
    const used = await enroll(t, (r.json.enrollment as { url: string }).url);
    assert.equal(used.statusCode, 200, used.body);
    const detail = await call('GET', `/admin/identities/${String(r.json.sub)}`);
    assert.deepEqual(
      (detail.json.emails as { address: string; verified: boolean }[]).map((e) => [e.address, e.verified]),
      [['shown@acme-robotics.dev', false]],
    );
  });

  test('refuses an address another account already has with 409 email_taken, whatever its case; nothing changes', async () => {
    const { t, call } = await inviting();
    await makeAccount(t.sql, t.secrets, t.config, { email: 'taken@acme-robotics.dev' });
    const before = await stateOf(t);
    const r = await call('POST', '/admin/identities', { email: 'TAKEN@acme-robotics.dev', roles: ['member'] });
    assertAdminError(r, 409, 'email_taken', 'An account with this email address already exists.');
    assert.deepEqual(await stateOf(t), before);
  });

  test('replaces a sign-up nobody verified instead of refusing its address', async () => {
    const { t, call } = await inviting();
    const [pending] = await t.sql<{ id: string }[]>`
      insert into identities (id, state, display_name) values ('usr_pending1', 'pending_verification', 'P') returning id`;
    await t.sql`insert into emails (identity_id, address, normalized, is_primary)
                values (${pending?.id ?? ''}, 'squat@acme-robotics.dev', 'squat@acme-robotics.dev', true)`;
    const r = await call('POST', '/admin/identities', { email: 'squat@acme-robotics.dev', roles: ['member'] });
    assert.equal(r.status, 201);
    const [gone] = await t.sql`select 1 from identities where id = 'usr_pending1'`;
    assert.equal(gone, undefined);
  });

  test('refuses a bad address, a hidden character in the name, a bad role, no role and an unknown field with 400 invalid_request; nothing changes', async () => {
    const { t, call } = await inviting();
    const before = await stateOf(t);
    const cases: [unknown, string][] = [
      [{ email: 'not an address', roles: ['member'] }, 'body.email'],
      [{ email: 'ok@acme-robotics.dev', display_name: 'Ada \u202eecila', roles: ['member'] }, 'body.display_name'],
      [{ email: 'ok@acme-robotics.dev', roles: ['Owner!'] }, 'body.roles.0'],
      [{ email: 'ok@acme-robotics.dev', roles: [] }, 'body.roles'],
      [{ email: 'ok@acme-robotics.dev', roles: ['member'], admin: true }, 'body.admin'],
    ];
    for (const [body, path] of cases) {
      const r = await call('POST', '/admin/identities', body);
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.error, 'invalid_request');
      assert.equal(r.json.request_id, r.headers['x-request-id']);
      const fields = r.json.fields as { path: string }[];
      assert.ok(
        fields.some((f) => f.path === path),
        `${JSON.stringify(body)} names ${path}: ${JSON.stringify(r.json)}`,
      );
    }
    assert.deepEqual(await stateOf(t), before);
  });

  test('refuses a signed-in person who is not an owner with 403 admin_required', async () => {
    const { t, call } = await inviting();
    const person = await makeAccount(t.sql, t.secrets, t.config, { roles: ['member'] });
    const { cookie } = await makeSession(t, person.sub);
    const before = await stateOf(t);
    const r = await call('POST', '/admin/identities', { email: 'x@acme-robotics.dev', roles: ['member'] }, cookie);
    assertAdminError(r, 403, 'admin_required', 'Only an owner of the organization may do this');
    assert.deepEqual(await stateOf(t), before);
  });
});

describe('POST /admin/identities/:sub/enrollment-link', () => {
  test('without delivery: shows a one-use link that sets a new password and TOTP and ends the old ones', async () => {
    const { t, admin, call } = await inviting();
    const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'forgetful@acme-robotics.dev' });
    const { cookie } = await makeSession(t, person.sub);
    const r = await call('POST', `/admin/identities/${person.sub}/enrollment-link`, {});
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const url = (r.json.enrollment as { url: string }).url;
    assert.deepEqual(r.json, {
      sub: person.sub,
      enrollment: {
        delivery: 'shown',
        expires_at: new Date(t.clock.now().getTime() + 86_400_000).toISOString(),
        url,
      },
    });
    assert.match(url, /^http:\/\/localhost:8080\/enroll\?return_to=%2Fsettings#token=[\w-]{43}$/);
    assert.deepEqual(await auditOf(t, person.sub), [
      { event: 'identity.enrollment_link_issued', actor: admin.sub, details: { delivery: 'shown' } },
    ]);

    const used = await enroll(t, url);
    assert.equal(used.statusCode, 200, used.body);
    const [totp] = await t.sql`select 1 from totp_credentials where identity_id = ${person.sub}`;
    assert.equal(totp, undefined, 'the old authenticator is gone: the person enrolls a new one');
    const old = await t.app.inject({
      method: 'POST',
      url: '/auth/logout',
      headers: { ...JSON_HEADERS, cookie },
      payload: {},
    });
    assert.equal(old.statusCode, 401, 'the sessions from before the reset ended');
    assert.equal((await enroll(t, url)).statusCode, 400, 'the link works once');
  });

  test('with delivery: the link goes to the primary address as an enrollment_link message', async () => {
    const { t, call } = await inviting(makeConfig({ delivery: { kind: 'dev_mailbox' } }));
    const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'away@acme-robotics.dev' });
    const r = await call('POST', `/admin/identities/${person.sub}/enrollment-link`, {});
    assert.equal(r.status, 200);
    assert.equal((r.json.enrollment as { delivery: string; url?: string }).delivery, 'dev_mailbox');
    assert.equal((r.json.enrollment as { url?: string }).url, undefined);
    const queued = await t.sql`select template, recipient from outbox_messages`;
    assert.deepEqual(
      [...queued].map((m) => ({ ...m })),
      [{ template: 'enrollment_link', recipient: 'away@acme-robotics.dev' }],
    );
  });

  test('refuses a suspended identity with 409 invalid_identity_state and an unknown one with 404; nothing changes', async () => {
    const { t, call } = await inviting();
    const person = await makeAccount(t.sql, t.secrets, t.config, { state: 'suspended' });
    const before = await stateOf(t);
    const suspended = await call('POST', `/admin/identities/${person.sub}/enrollment-link`, {});
    assertAdminError(suspended, 409, 'invalid_identity_state', 'The identity is suspended; reactivate it first');
    const unknown = await call('POST', '/admin/identities/usr_nobody/enrollment-link', {});
    assertAdminError(unknown, 404, 'not_found', 'No such identity');
    assert.deepEqual(await stateOf(t), before);
    const [tokens] = await t.sql<{ n: number }[]>`select count(*)::int as n from enrollment_tokens`;
    assert.equal(tokens?.n, 0);
  });
});
