// Sign-up and forgot-password rules that concern who holds an address: the reset link goes to the address on
// record, an unknown address leaves no trace, any verified address counts as registered, sign-up attaches its
// method through the identity module (audited), and a failure inside sign-up rolls everything back.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JSON_HEADERS, makeAccount } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { deliveryWorker, Inbox, startMailbox } from '../helpers/mailbox.ts';
import { makeIdentity } from '../helpers/oauth-fixtures.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const inbox = new Inbox(smtp, deliveryWorker(t.sql, config, t.secrets.delivery, t.clock.now, t.logs));

const PASSWORD = 'a long enough passphrase 42';
const post = (url: string, payload: unknown) =>
  t.app.inject({ method: 'POST', url, headers: JSON_HEADERS, payload: payload as object });

async function stored() {
  const [row] = await t.sql`
    select (select count(*)::int from identities) as identities, (select count(*)::int from emails) as emails,
           (select count(*)::int from sign_in_methods) as methods,
           (select count(*)::int from verifications) as verifications,
           (select count(*)::int from outbox_messages) as messages`;
  return row;
}

/** What a caller can observe of a response, the request id aside. */
const observable = (r: { statusCode: number; headers: Record<string, unknown>; body: string }) => ({
  status: r.statusCode,
  body: r.body,
  headers: Object.keys(r.headers)
    .filter((name) => !['x-request-id', 'date', 'content-length'].includes(name))
    .sort()
    .map((name) => `${name}: ${r.headers[name]}`),
});

describe('POST /account/password/forgot', () => {
  test('an unknown address gets the identical response and stores no verification and no message', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'known@acme-robotics.dev' });
    const known = await post('/account/password/forgot', { email: person.email });
    await inbox.deliver(1);
    const before = await stored();
    const unknown = await post('/account/password/forgot', { email: 'unknown@acme-robotics.dev' });
    assert.deepEqual(observable(unknown), observable(known));
    assert.equal(unknown.statusCode, 202);
    assert.deepEqual(await stored(), before);
    const [audit] = await t.sql`select subject from audit_events where event = 'password.reset_requested_unknown'`;
    assert.equal(audit?.subject, null);
  });

  test('the reset link goes to the address on record, not the spelling typed', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'Rosalind.Franklin@Acme-Robotics.dev' });
    assert.equal(
      (await post('/account/password/forgot', { email: 'rosalind.franklin@acme-robotics.dev' })).statusCode,
      202,
    );
    const [mail] = await inbox.deliver(1);
    // The local part as on record (domains are case-insensitive and arrive lower-cased).
    assert.deepEqual(mail?.to, ['Rosalind.Franklin@acme-robotics.dev']);
    const [verification] = await t.sql`select email from verifications where identity_id = ${person.sub}`;
    assert.equal(verification?.email, person.email);
  });
});

describe('POST /account/signup', () => {
  test('attaches the password method through the identity module, which writes method.attached', async () => {
    const response = await post('/account/signup', {
      email: 'attach@acme-robotics.dev',
      password: PASSWORD,
      display_name: 'Attach',
    });
    assert.equal(response.statusCode, 201);
    await inbox.deliver(1);
    const { identity_id } = response.json() as { identity_id: string };
    const [method] = await t.sql`select id from sign_in_methods where identity_id = ${identity_id}`;
    const [record] = await t.sql<{ actor: string; details: Record<string, unknown> }[]>`
      select actor, details from audit_events where event = 'method.attached' and subject = ${identity_id}`;
    assert.equal(record?.actor, identity_id);
    assert.deepEqual(record?.details, { kind: 'password', provider: 'local', method_id: method?.id });
  });

  test('an address another identity has verified is registered: same answer, a notice there, no second account', async () => {
    // An identity that signs in some other way (no password method) but has verified this address.
    const holder = await makeIdentity(t.sql, { email: 'Verified.Elsewhere@acme-robotics.dev' });
    const before = await stored();
    const response = await post('/account/signup', {
      email: 'verified.elsewhere@acme-robotics.dev',
      password: PASSWORD,
      display_name: 'Newcomer',
    });
    assert.equal(response.statusCode, 201);
    const body = response.json() as { identity_id: string; verification_required: boolean };
    assert.equal(body.verification_required, true);
    assert.notEqual(body.identity_id, holder);
    const [notice] = await inbox.deliver(1);
    assert.deepEqual(notice?.to, ['Verified.Elsewhere@acme-robotics.dev']);
    assert.equal(notice?.subject, 'Sign-up attempt at Acme Robotics');
    const after = await stored();
    assert.deepEqual({ ...after, messages: before?.messages }, before, 'no identity, method or verification');
    const [audit] =
      await t.sql`select subject from audit_events where event = 'signup.existing_address' order by occurred_at desc, seq desc`;
    assert.equal(audit?.subject, holder);
  });

  test('an address only typed, never verified, by another identity does not block sign-up', async () => {
    const other = await makeIdentity(t.sql, { email: null });
    await t.sql`insert into emails (identity_id, address, normalized, is_primary)
                values (${other}, 'typed@acme-robotics.dev', 'typed@acme-robotics.dev', true)`;
    const response = await post('/account/signup', {
      email: 'typed@acme-robotics.dev',
      password: PASSWORD,
      display_name: 'Owner',
    });
    assert.equal(response.statusCode, 201);
    const [mail] = await inbox.deliver(1);
    assert.equal(mail?.subject, 'Confirm your email address for Acme Robotics');
    const { identity_id } = response.json() as { identity_id: string };
    assert.equal((await t.sql`select 1 from identities where id = ${identity_id}`).length, 1);
  });

  test('a failure while queueing the message rolls back the identity, method, verification and message', async () => {
    // A trigger in this test's database refuses the message for one recipient, after the identity, the method
    // and the verification were written in the same transaction.
    await t.sql.unsafe(`
      create function refuse_rollback_message() returns trigger language plpgsql as $$
      begin
        if new.recipient = 'rollback@acme-robotics.dev' then raise exception 'injected outbox failure'; end if;
        return new;
      end $$;
      create trigger refuse_rollback_message before insert on outbox_messages
        for each row execute function refuse_rollback_message();`);
    const before = await stored();
    const response = await post('/account/signup', {
      email: 'rollback@acme-robotics.dev',
      password: PASSWORD,
      display_name: 'Rollback',
    });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), {
      error: 'server_error',
      error_description: 'The server could not complete the request.',
      request_id: response.headers['x-request-id'],
    });
    assert.deepEqual(await stored(), before);
    assert.equal((await t.sql`select 1 from verifications where email = 'rollback@acme-robotics.dev'`).length, 0);
    const attached = await t.sql`
      select 1 from audit_events where event in ('method.attached', 'signup.created') and request_id = ${response.headers['x-request-id'] as string}`;
    assert.equal(attached.length, 0, 'no audit record claims what was rolled back');
    assert.ok(t.logs.text.includes('injected outbox failure'), 'the cause reaches the log');
  });
});
