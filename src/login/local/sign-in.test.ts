import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Account,
  JSON_HEADERS,
  makeAccount,
  signIn,
  startLogin,
  totpCode,
} from '../../../test/helpers/accounts.ts';
import { startTestApp } from '../../../test/helpers/app.ts';
import { hashPassword, verifyPassword } from '../../crypto/password-hash.ts';
import { createFactorChecker, type PasswordHasher } from './factors.ts';
import { recoveryCodeHash } from './recovery-codes.ts';
import { openTotpSeed } from './totp.ts';

const envelope = (response: { json(): unknown; headers: Record<string, unknown> }, error: string) => {
  const body = response.json() as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description', 'request_id']);
  assert.equal(body.error, error);
  assert.equal(body.request_id, response.headers['x-request-id']);
  return body;
};

describe('POST /auth/login and POST /auth/mfa/verify', async () => {
  const t = await startTestApp();
  const account = async (options = {}): Promise<Account> => await makeAccount(t.sql, t.secrets, t.config, options);

  it('establishes an aal2 session for password plus TOTP, with the documented cookie flags', async () => {
    const a = await account();
    const { response, started } = await signIn(t.app, a.email, {
      password: a.password,
      totp: totpCode(a.totpSeed as string, t.clock.now()),
    });
    assert.equal(started.response.statusCode, 200);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), {
      aal: 'aal2',
      amr: ['pwd', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });
    const cookies = ([] as string[]).concat(response.headers['set-cookie'] as string | string[]);
    const session = cookies.find((c) => c.startsWith('gatehouse_session='));
    assert.ok(session);
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
    assert.match(session, /Path=\//);
    assert.ok(
      cookies.some((c) => /^gatehouse_login=;.*Max-Age=0/.test(c)),
      'the login cookie is cleared',
    );
    assert.equal(response.headers['cache-control'], 'no-store');
  });

  it('answers the login start with a transaction, a challenge and an HttpOnly login cookie', async () => {
    const a = await account();
    const { response, body, cookie } = await startLogin(t.app, a.email);
    assert.equal(response.statusCode, 200);
    assert.deepEqual(Object.keys(body).sort(), ['challenge_id', 'expires_in', 'transaction_id']);
    assert.match(body.transaction_id, /^ltx_[A-Za-z0-9_-]{22}$/);
    assert.match(body.challenge_id, /^lch_[A-Za-z0-9_-]{22}$/);
    assert.equal(body.expires_in, 600);
    assert.ok(cookie);
    assert.match(String(response.headers['set-cookie']), /gatehouse_login=.*HttpOnly.*SameSite=Lax/);
  });

  it('refuses a wrong password with invalid_credentials', async () => {
    const a = await account();
    const { response, session } = await signIn(t.app, a.email, {
      password: `${a.password}x`,
      totp: totpCode(a.totpSeed as string, t.clock.now()),
    });
    assert.equal(response.statusCode, 401);
    envelope(response, 'invalid_credentials');
    assert.equal(session, '');
  });

  it('refuses a wrong TOTP code with the same invalid_credentials answer', async () => {
    const a = await account();
    const good = totpCode(a.totpSeed as string, t.clock.now());
    const wrong = String((Number(good) + 1) % 1_000_000).padStart(6, '0');
    const { response } = await signIn(t.app, a.email, { password: a.password, totp: wrong });
    assert.equal(response.statusCode, 401);
    const body = envelope(response, 'invalid_credentials');
    assert.equal(body.error_description, 'The sign-in details are not correct.');
  });

  it('refuses a second factor missing on an account that has TOTP', async () => {
    const a = await account();
    const { response } = await signIn(t.app, a.email, { password: a.password });
    assert.equal(response.statusCode, 401);
    envelope(response, 'invalid_credentials');
  });

  it('accepts a recovery code once, then refuses it', async () => {
    const a = await account();
    const code = (a.recoveryCodes[3] as string).toUpperCase();
    const first = await signIn(t.app, a.email, { password: a.password, recovery_code: code });
    assert.equal(first.response.statusCode, 200);
    assert.deepEqual(first.response.json(), {
      aal: 'aal2',
      amr: ['pwd', 'otp'],
      enrollment_required: false,
      second_factor_required: false,
    });
    const second = await signIn(t.app, a.email, { password: a.password, recovery_code: code });
    assert.equal(second.response.statusCode, 401);
    envelope(second.response, 'invalid_credentials');
    const [row] =
      await t.sql`select count(*)::int as n from recovery_codes where identity_id = ${a.sub} and used_at is null`;
    assert.equal(row?.n, 9);
  });

  it('does not burn a recovery code when the password is wrong', async () => {
    const a = await account();
    const code = a.recoveryCodes[0] as string;
    const wrong = await signIn(t.app, a.email, { password: 'not the password!!', recovery_code: code });
    assert.equal(wrong.response.statusCode, 401);
    const right = await signIn(t.app, a.email, { password: a.password, recovery_code: code });
    assert.equal(right.response.statusCode, 200);
  });

  it('refuses a replayed TOTP code within its window', async () => {
    const a = await account();
    const code = totpCode(a.totpSeed as string, t.clock.now());
    const first = await signIn(t.app, a.email, { password: a.password, totp: code });
    assert.equal(first.response.statusCode, 200);
    t.clock.advance(5);
    const replay = await signIn(t.app, a.email, { password: a.password, totp: code });
    assert.equal(replay.response.statusCode, 401);
    envelope(replay.response, 'invalid_credentials');
    t.clock.advance(30);
    const next = await signIn(t.app, a.email, {
      password: a.password,
      totp: totpCode(a.totpSeed as string, t.clock.now()),
    });
    assert.equal(next.response.statusCode, 200);
  });

  it('accepts a code from the previous step (one step of clock skew)', async () => {
    const a = await account();
    const code = totpCode(a.totpSeed as string, new Date(t.clock.now().getTime() - 30_000));
    const { response } = await signIn(t.app, a.email, { password: a.password, totp: code });
    assert.equal(response.statusCode, 200);
  });

  it('accepts a code from the next step (one step of clock skew ahead)', async () => {
    const a = await account();
    const code = totpCode(a.totpSeed as string, new Date(t.clock.now().getTime() + 30_000));
    const { response } = await signIn(t.app, a.email, { password: a.password, totp: code });
    assert.equal(response.statusCode, 200);
  });

  for (const steps of [-2, 2]) {
    it(`refuses a code ${steps} steps away with invalid_credentials`, async () => {
      const a = await account();
      const now = t.clock.now().getTime();
      const code = totpCode(a.totpSeed as string, new Date(now + steps * 30_000));
      const inWindow = [-1, 0, 1].map((d) => totpCode(a.totpSeed as string, new Date(now + d * 30_000)));
      // A 6-digit code repeats by chance about once in a million seeds; such a seed proves nothing here.
      if (inWindow.includes(code)) return;
      const { response } = await signIn(t.app, a.email, { password: a.password, totp: code });
      assert.equal(response.statusCode, 401);
      envelope(response, 'invalid_credentials');
    });
  }

  it('stores the TOTP seed sealed and recovery codes as keyed hashes, never as given to the user', async () => {
    const a = await account();
    const [totp] = await t.sql`select sealed_seed from totp_credentials where identity_id = ${a.sub}`;
    const sealed = String(totp?.sealed_seed);
    assert.ok(!sealed.includes(a.totpSeed as string), 'the base32 seed is not in the row');
    assert.ok(!sealed.toUpperCase().includes((a.totpSeed as string).slice(0, 16)), 'nor a recognisable part of it');
    assert.equal(openTotpSeed(t.secrets.totp, a.sub, sealed), a.totpSeed, 'it opens under the TOTP key');
    const stored = (await t.sql`select code_hash from recovery_codes where identity_id = ${a.sub}`).map((r) =>
      String(r.code_hash),
    );
    assert.equal(stored.length, 10);
    for (const code of a.recoveryCodes) {
      assert.ok(!stored.some((h) => h.includes(code) || h.includes(code.replace(/-/g, ''))), 'no plain code stored');
      assert.ok(stored.includes(recoveryCodeHash(t.secrets.recoveryPepper, a.sub, code)));
    }
  });

  it('spends the same argon2id work on an unknown subject as on a wrong password', async () => {
    const a = await account();
    const calls: string[] = [];
    const counting: PasswordHasher = {
      hash: async (password, pepper, params) => {
        calls.push(`hash m=${params.memoryKib},t=${params.passes},p=${params.parallelism}`);
        return await hashPassword(password, pepper, params);
      },
      verify: async (password, phc, pepper, params) => {
        calls.push(`verify ${phc.split('$').slice(1, 4).join('$')}`);
        return await verifyPassword(password, phc, pepper, params);
      },
    };
    const check = createFactorChecker(
      {
        sql: t.sql,
        audit: t.deps.audit,
        clock: t.clock.now,
        secrets: t.secrets,
        passwords: t.config.passwords,
        organization: t.config.organization,
        login: t.config.login,
        issuer: t.config.server.issuer,
        directories: [],
        logDirectoryFailure: () => undefined,
      },
      counting,
    );
    const factors = { password: 'guessing password 1', totp: '123456' };
    // The decoy hash is made once per process, not per request; after that each path verifies exactly once.
    assert.equal(await check(null, factors, t.clock.now()), null);
    calls.length = 0;
    assert.equal(await check(a.sub, factors, t.clock.now()), null);
    const known = calls.splice(0);
    assert.equal(await check(null, factors, t.clock.now()), null);
    const unknown = calls.splice(0);
    assert.deepEqual(known, ['verify argon2id$v=19$m=19456,t=2,p=1']);
    assert.deepEqual(unknown, known);
  });

  const verify = async (fields: Record<string, unknown>, cookie: string) =>
    await t.app.inject({
      method: 'POST',
      url: '/auth/mfa/verify',
      headers: { ...JSON_HEADERS, ...(cookie ? { cookie } : {}) },
      payload: fields,
    });

  it('refuses the verify step without the login cookie (invalid_login_transaction)', async () => {
    const a = await account();
    const { body } = await startLogin(t.app, a.email);
    const totp = totpCode(a.totpSeed as string, t.clock.now());
    const response = await verify({ ...body, expires_in: undefined, password: a.password, totp }, '');
    assert.equal(response.statusCode, 400);
    envelope(response, 'invalid_login_transaction');
  });

  it("refuses another browser's login cookie", async () => {
    const a = await account();
    const mine = await startLogin(t.app, a.email);
    const theirs = await startLogin(t.app, a.email);
    const totp = totpCode(a.totpSeed as string, t.clock.now());
    const { transaction_id, challenge_id } = mine.body;
    const response = await verify({ transaction_id, challenge_id, password: a.password, totp }, theirs.cookie);
    assert.equal(response.statusCode, 400);
    envelope(response, 'invalid_login_transaction');
  });

  it('refuses a challenge that belongs to another transaction', async () => {
    const a = await account();
    const one = await startLogin(t.app, a.email);
    const two = await startLogin(t.app, a.email);
    const totp = totpCode(a.totpSeed as string, t.clock.now());
    const payload = {
      transaction_id: one.body.transaction_id,
      challenge_id: two.body.challenge_id,
      password: a.password,
      totp,
    };
    const response = await verify(payload, one.cookie);
    assert.equal(response.statusCode, 400);
    envelope(response, 'invalid_login_transaction');
  });

  it('refuses an expired transaction', async () => {
    const a = await account();
    const { body, cookie } = await startLogin(t.app, a.email);
    t.clock.advance(601);
    const totp = totpCode(a.totpSeed as string, t.clock.now());
    const { transaction_id, challenge_id } = body;
    const response = await verify({ transaction_id, challenge_id, password: a.password, totp }, cookie);
    assert.equal(response.statusCode, 400);
    envelope(response, 'invalid_login_transaction');
  });

  it('allows one verify per transaction', async () => {
    const a = await account();
    const { body, cookie } = await startLogin(t.app, a.email);
    const { transaction_id, challenge_id } = body;
    const first = await verify({ transaction_id, challenge_id, password: 'wrong password 123' }, cookie);
    assert.equal(first.statusCode, 401);
    const totp = totpCode(a.totpSeed as string, t.clock.now());
    const again = await verify({ transaction_id, challenge_id, password: a.password, totp }, cookie);
    assert.equal(again.statusCode, 400);
    envelope(again, 'invalid_login_transaction');
  });

  it('answers an unknown subject with the same status and shape at both steps', async () => {
    const a = await account();
    const known = await startLogin(t.app, a.email);
    const unknown = await startLogin(t.app, 'nobody-here@acme.test');
    assert.equal(unknown.response.statusCode, known.response.statusCode);
    assert.deepEqual(Object.keys(unknown.body).sort(), Object.keys(known.body).sort());
    assert.match(unknown.body.transaction_id, /^ltx_[A-Za-z0-9_-]{22}$/);
    assert.equal(unknown.body.expires_in, known.body.expires_in);
    assert.ok(unknown.cookie);
    const wrongKnown = await signIn(t.app, a.email, { password: 'guessing password 1', totp: '123456' });
    const wrongUnknown = await signIn(t.app, 'nobody-here@acme.test', {
      password: 'guessing password 1',
      totp: '123456',
    });
    assert.equal(wrongUnknown.response.statusCode, wrongKnown.response.statusCode);
    const k = envelope(wrongKnown.response, 'invalid_credentials');
    const u = envelope(wrongUnknown.response, 'invalid_credentials');
    assert.equal(u.error_description, k.error_description);
  });

  it('refuses totp and recovery_code together, and unknown fields, with invalid_request', async () => {
    const a = await account();
    const both = await signIn(t.app, a.email, { password: a.password, totp: '123456', recovery_code: 'abcde-fghij' });
    assert.equal(both.response.statusCode, 400);
    envelope(both.response, 'invalid_request');
    const extra = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: JSON_HEADERS,
      payload: { subject: a.email, remember: true },
    });
    assert.equal(extra.statusCode, 400);
    assert.equal(extra.json().error, 'invalid_request');
  });

  it('refuses a cross-site login start with csrf_rejected', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
      payload: { subject: 'someone@acme.test' },
    });
    assert.equal(response.statusCode, 403);
    envelope(response, 'csrf_rejected');
  });

  it('answers a form-encoded login start 415 unsupported_media_type and starts no transaction', async () => {
    const count = async () => await t.sql`select count(*)::int as n from login_transactions`;
    const before = await count();
    const response = await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      payload: 'subject=someone%40acme.test',
    });
    assert.equal(response.statusCode, 415);
    envelope(response, 'unsupported_media_type');
    assert.equal(response.headers['set-cookie'], undefined);
    assert.deepEqual(await count(), before);
  });

  it('refuses a suspended account like a wrong password', async () => {
    const a = await account({ state: 'suspended' });
    const { response } = await signIn(t.app, a.email, {
      password: a.password,
      totp: totpCode(a.totpSeed as string, t.clock.now()),
    });
    assert.equal(response.statusCode, 401);
    envelope(response, 'invalid_credentials');
  });

  it('rehashes the password with the configured parameters only after the second factor succeeded', async () => {
    const a = await account();
    const old = await hashPassword(a.password, t.secrets.passwordPepper, {
      memoryKib: 8192,
      passes: 1,
      parallelism: 1,
    });
    await t.sql`update password_credentials set phc = ${old} where identity_id = ${a.sub}`;
    const wrong = await signIn(t.app, a.email, { password: 'not it, not at all', totp: '000000' });
    assert.equal(wrong.response.statusCode, 401);
    const good = totpCode(a.totpSeed as string, t.clock.now());
    const wrongTotp = String((Number(good) + 1) % 1_000_000).padStart(6, '0');
    const rightPassword = await signIn(t.app, a.email, { password: a.password, totp: wrongTotp });
    assert.equal(rightPassword.response.statusCode, 401);
    const [unchanged] = await t.sql`select phc from password_credentials where identity_id = ${a.sub}`;
    assert.equal(unchanged?.phc, old, 'neither a wrong password nor a right password with a wrong code rehashes');
    const { response } = await signIn(t.app, a.email, {
      password: a.password,
      totp: totpCode(a.totpSeed as string, t.clock.now()),
    });
    assert.equal(response.statusCode, 200);
    const [row] = await t.sql`select phc from password_credentials where identity_id = ${a.sub}`;
    assert.match(String(row?.phc), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});
