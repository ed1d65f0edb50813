import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TestClock } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { ensureBootstrap } from '../identity/bootstrap.ts';
import type { Sub } from '../identity/ids.ts';
import { verificationError } from './errors.ts';
import { consumeVerification, issueVerification } from './verification.ts';

const { sql } = await createTestDatabase();
const owner: Sub = (
  await ensureBootstrap(sql, { organizationId: 'acme', organizationName: 'Acme', ownerSubject: 'o@acme.dev' })
).ownerId;

describe('verification issuance and consumption', () => {
  const clock = new TestClock(Date.parse('2026-01-01T00:00:00Z'));

  const issue = (overrides: { ttlSeconds?: number; maxAttempts?: number } = {}) =>
    issueVerification(sql, { purpose: 'signup', identityId: owner, email: 'new@acme.dev', ...overrides }, clock.now());

  test('the right secret consumes the verification once and returns its identity and address', async () => {
    const { verificationId, secret } = await issue();
    const first = await consumeVerification(sql, { verificationId, secret, purpose: 'signup' }, clock.now());
    assert.deepEqual(first, { ok: true, identityId: owner, email: 'new@acme.dev', purpose: 'signup' });
    const second = await consumeVerification(sql, { verificationId, secret, purpose: 'signup' }, clock.now());
    assert.deepEqual(second, { ok: false, reason: 'invalid' });
  });

  test('stores only the hash of the secret', async () => {
    const { verificationId, secret } = await issue();
    const [row] = await sql`select * from verifications where id = ${verificationId}`;
    assert.ok(row);
    assert.ok(!JSON.stringify(row).includes(secret));
  });

  test('answers expired after the ttl, even with the right secret', async () => {
    const { verificationId, secret } = await issue({ ttlSeconds: 600 });
    clock.advance(600);
    const result = await consumeVerification(sql, { verificationId, secret, purpose: 'signup' }, clock.now());
    assert.deepEqual(result, { ok: false, reason: 'expired' });
  });

  test('counts wrong secrets and refuses even the right one once the limit is reached', async () => {
    const { verificationId, secret } = await issue({ maxAttempts: 3 });
    const wrong = { verificationId, secret: 'not-the-secret', purpose: 'signup' as const };
    assert.deepEqual(await consumeVerification(sql, wrong, clock.now()), { ok: false, reason: 'invalid' });
    assert.deepEqual(await consumeVerification(sql, wrong, clock.now()), { ok: false, reason: 'invalid' });
    assert.deepEqual(await consumeVerification(sql, wrong, clock.now()), { ok: false, reason: 'attempts_exceeded' });
    const right = await consumeVerification(sql, { verificationId, secret, purpose: 'signup' }, clock.now());
    assert.deepEqual(right, { ok: false, reason: 'attempts_exceeded' });
  });

  test('a wrong purpose is invalid and does not consume the verification', async () => {
    const { verificationId, secret } = await issue();
    const wrongPurpose = await consumeVerification(
      sql,
      { verificationId, secret, purpose: 'password_reset' },
      clock.now(),
    );
    assert.deepEqual(wrongPurpose, { ok: false, reason: 'invalid' });
    const right = await consumeVerification(sql, { verificationId, secret, purpose: 'signup' }, clock.now());
    assert.equal(right.ok, true);
  });

  test('an unknown id or an oversized input is invalid', async () => {
    const unknown = await consumeVerification(
      sql,
      { verificationId: 'vrf_nope', secret: 'x', purpose: 'signup' },
      clock.now(),
    );
    assert.deepEqual(unknown, { ok: false, reason: 'invalid' });
    const huge = await consumeVerification(
      sql,
      { verificationId: 'vrf_x', secret: 'x'.repeat(10_000), purpose: 'signup' },
      clock.now(),
    );
    assert.deepEqual(huge, { ok: false, reason: 'invalid' });
  });

  test('issuing a new verification ends the previous one of the same purpose', async () => {
    const older = await issue();
    const newer = await issue();
    const result = await consumeVerification(sql, { ...older, purpose: 'signup' }, clock.now());
    assert.deepEqual(result, { ok: false, reason: 'expired' });
    assert.equal((await consumeVerification(sql, { ...newer, purpose: 'signup' }, clock.now())).ok, true);
  });

  test('two concurrent consumes of one verification: exactly one wins', async () => {
    for (let round = 0; round < 10; round++) {
      const { verificationId, secret } = await issue();
      const results = await Promise.all(
        Array.from({ length: 4 }, () =>
          consumeVerification(sql, { verificationId, secret, purpose: 'signup' }, clock.now()),
        ),
      );
      assert.equal(results.filter((r) => r.ok).length, 1);
    }
  });

  test('refuses an address that is not a plain bounded address', async () => {
    for (const email of [`${'a'.repeat(250)}@x.dev`, 'a@b.dev\r\nBcc: c@d.dev', 'Name <a@b.dev>', 'no-at-sign'])
      await assert.rejects(issueVerification(sql, { purpose: 'signup', identityId: owner, email }, clock.now()), {
        name: 'InvalidRecipient',
      });
  });

  test('failures map to the catalogue codes', () => {
    assert.deepEqual(
      (['invalid', 'expired', 'attempts_exceeded'] as const).map((r) => [
        verificationError(r).code,
        verificationError(r).status,
      ]),
      [
        ['verification_invalid', 400],
        ['verification_expired', 400],
        ['verification_attempts_exceeded', 400],
      ],
    );
  });
});
