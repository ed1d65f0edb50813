// Account changes that end browser sessions end the identity's OAuth grants too: a refresh token obtained before
// a password reset, a TOTP removal or "sign out other sessions" is refused afterwards with invalid_grant.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { JSON_HEADERS, makeAccount, totpCode } from '../helpers/accounts.ts';
import { startTestApp } from '../helpers/app.ts';
import { deliveryWorker, Inbox, proof, startMailbox, verificationLink } from '../helpers/mailbox.ts';
import { makeClient, makeSession } from '../helpers/oauth-fixtures.ts';
import { assertEnvelope, refreshTokens, userTokens } from '../helpers/oauth-flow.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startTestApp({ config });
const inbox = new Inbox(smtp, deliveryWorker(t.sql, config, t.secrets.delivery, t.clock.now, t.logs));
const { client, secret } = await makeClient(t.sql, t.secrets.clientSecret);

const post = (url: string, payload: unknown, cookie = '') =>
  t.app.inject({
    method: 'POST',
    url,
    headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) },
    payload: payload as object,
  });
const get = (url: string, cookie: string) => t.app.inject({ method: 'GET', url, headers: { cookie } });

/** A refresh token issued to `client` through the authorization code flow of the session `cookie`. */
async function refreshTokenFor(cookie: string): Promise<string> {
  return (await userTokens(t, { client, secret, cookie })).refresh_token;
}

const refresh = (token: string) => refreshTokens(t, client, secret, token);

const assertRevoked = async (token: string) =>
  assertEnvelope(await refresh(token), 400, 'invalid_grant', 'The refresh token has been revoked');

const auditDetails = async (event: string, subject: string) => {
  const [row] = await t.sql<{ details: Record<string, unknown> }[]>`
    select details from audit_events where event = ${event} and subject = ${subject} order by occurred_at desc limit 1`;
  return row?.details;
};

describe('POST /account/password/reset', () => {
  test('a refresh token obtained before the reset is refused after it with invalid_grant', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'reset-grants@acme-robotics.dev' });
    const { cookie } = await makeSession(t, person.sub);
    const token = await refreshTokenFor(cookie);
    assert.equal((await post('/account/password/forgot', { email: person.email })).statusCode, 202);
    const link = verificationLink((await inbox.deliver(1))[0]?.text ?? '');
    const reset = await post('/account/password/reset', { ...proof(link), password: 'a brand new passphrase 31' });
    assert.equal(reset.statusCode, 200);
    await assertRevoked(token);
    assert.deepEqual(await auditDetails('password.reset', person.sub), { sessions_revoked: 1, grants_revoked: 1 });
  });
});

describe('POST /account/totp/disable', () => {
  test('ends every other session and every grant, the caller’s own included', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'totp-grants@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const fromMine = await refreshTokenFor(mine.cookie);
    const fromOther = await refreshTokenFor(other.cookie);
    t.clock.advance(30);
    const disabled = await post(
      '/account/totp/disable',
      { password: person.password, code: totpCode(person.totpSeed as string, t.clock.now()) },
      mine.cookie,
    );
    assert.equal(disabled.statusCode, 200);
    assert.deepEqual(disabled.json(), { enrollment_required: true });
    await assertRevoked(fromMine);
    await assertRevoked(fromOther);
    for (const cookie of [mine.cookie, other.cookie]) {
      const ended = await get('/account/profile', cookie);
      assert.equal(ended.statusCode, 401);
      assert.equal((ended.json() as { error: string }).error, 'login_required');
    }
    const [totp] = await t.sql`select 1 from totp_credentials where identity_id = ${person.sub}`;
    assert.equal(totp, undefined);
    assert.deepEqual(await auditDetails('totp.disabled', person.sub), { sessions_revoked: 1, grants_revoked: 2 });
  });

  test('a refused code leaves TOTP, sessions and grants as they were', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'totp-kept@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const token = await refreshTokenFor(other.cookie);
    const refused = await post('/account/totp/disable', { password: person.password, code: '000000' }, mine.cookie);
    assert.equal(refused.statusCode, 403);
    assert.equal((refused.json() as { error: string }).error, 'reauthentication_failed');
    assert.equal((await get('/account/profile', other.cookie)).statusCode, 200);
    assert.equal((await refresh(token)).status, 200);
  });
});

describe('POST /account/totp/disable atomicity', () => {
  test('a failure while replacing the session rolls back the removal: TOTP, sessions and grants stay', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'totp-atomic@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const token = await refreshTokenFor(other.cookie);
    // A trigger in this test's database refuses the replacement session, the last write of the transaction.
    await t.sql.unsafe(`
      create function refuse_session_for_test() returns trigger language plpgsql as $$
      begin
        if new.identity_id = '${person.sub}' then raise exception 'injected session failure'; end if;
        return new;
      end $$;
      create trigger refuse_session_for_test before insert on sessions
        for each row execute function refuse_session_for_test();`);
    t.clock.advance(30);
    const failed = await post(
      '/account/totp/disable',
      { password: person.password, code: totpCode(person.totpSeed as string, t.clock.now()) },
      mine.cookie,
    );
    await t.sql.unsafe('drop trigger refuse_session_for_test on sessions; drop function refuse_session_for_test();');
    assert.equal(failed.statusCode, 500);
    assert.equal((failed.json() as { error: string }).error, 'server_error');
    const [totp] = await t.sql`select confirmed_at is not null as confirmed from totp_credentials
                               where identity_id = ${person.sub}`;
    assert.deepEqual({ ...totp }, { confirmed: true });
    for (const cookie of [mine.cookie, other.cookie])
      assert.equal((await get('/account/profile', cookie)).statusCode, 200);
    assert.equal((await refresh(token)).status, 200);
    assert.equal(await auditDetails('totp.disabled', person.sub), undefined);
  });
});

describe('POST /account/sessions/revoke-others', () => {
  test('ends the grants issued from the other sessions and keeps the caller’s own', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'others-grants@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const fromMine = await refreshTokenFor(mine.cookie);
    const fromOther = await refreshTokenFor(other.cookie);
    const revoked = await post('/account/sessions/revoke-others', {}, mine.cookie);
    assert.deepEqual(revoked.json(), { revoked: 1 });
    await assertRevoked(fromOther);
    assert.equal((await refresh(fromMine)).status, 200);
  });
});

describe('POST /account/sessions/:id/revoke', () => {
  test('ends the grants issued from that session and leaves the others', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'one-session-grants@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const lost = await makeSession(t, person.sub);
    const fromMine = await refreshTokenFor(mine.cookie);
    const fromLost = await refreshTokenFor(lost.cookie);
    const revoked = await post(`/account/sessions/${lost.session.id}/revoke`, {}, mine.cookie);
    assert.equal(revoked.statusCode, 204);
    await assertRevoked(fromLost);
    assert.equal((await refresh(fromMine)).status, 200);
    assert.deepEqual(await auditDetails('session.revoked', person.sub), {
      session_id: lost.session.id,
      grants_revoked: 1,
    });
  });

  test('another person’s session is 404 and its grants stay', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'not-mine-a@acme-robotics.dev' });
    const stranger = await makeAccount(t.sql, t.secrets, config, { email: 'not-mine-b@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const theirs = await makeSession(t, stranger.sub);
    const fromTheirs = await refreshTokenFor(theirs.cookie);
    const refused = await post(`/account/sessions/${theirs.session.id}/revoke`, {}, mine.cookie);
    assertEnvelope(
      { status: refused.statusCode, json: refused.json(), headers: refused.headers },
      404,
      'not_found',
      'No such session',
    );
    assert.equal((await refresh(fromTheirs)).status, 200);
  });
});

describe('POST /account/password/change', () => {
  test('ends the other sessions and their grants, keeps the caller’s own', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'change-grants@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const fromMine = await refreshTokenFor(mine.cookie);
    const fromOther = await refreshTokenFor(other.cookie);
    const changed = await post(
      '/account/password/change',
      { current_password: person.password, new_password: 'a fresh and longer passphrase 77' },
      mine.cookie,
    );
    assert.equal(changed.statusCode, 200);
    assert.deepEqual(changed.json(), { sessions_revoked: 1 });
    await assertRevoked(fromOther);
    assert.equal((await refresh(fromMine)).status, 200);
    assert.equal((await get('/account/profile', other.cookie)).statusCode, 401);
    assert.deepEqual(await auditDetails('password.changed', person.sub), { sessions_revoked: 1, grants_revoked: 1 });
  });

  test('a wrong current password is 403 reauthentication_failed and ends nothing', async () => {
    const person = await makeAccount(t.sql, t.secrets, config, { email: 'change-wrong@acme-robotics.dev' });
    const mine = await makeSession(t, person.sub);
    const other = await makeSession(t, person.sub);
    const fromOther = await refreshTokenFor(other.cookie);
    const refused = await post(
      '/account/password/change',
      { current_password: 'not the password at all', new_password: 'a fresh and longer passphrase 78' },
      mine.cookie,
    );
    assertEnvelope(
      { status: refused.statusCode, json: refused.json(), headers: refused.headers },
      403,
      'reauthentication_failed',
      'The current password or code is not correct.',
    );
    assert.equal((await refresh(fromOther)).status, 200);
    assert.equal((await get('/account/profile', other.cookie)).statusCode, 200);
  });
});
