import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { makeAccount } from '../test/helpers/accounts.ts';
import { TestClock, testSecrets } from '../test/helpers/app.ts';
import { makeConfig } from '../test/helpers/config.ts';
import { createTestDatabase } from '../test/helpers/database.ts';
import { runHousekeeping, startHousekeeping } from './housekeeping.ts';
import { countRequest } from './http/store.ts';
import { insertLoginTransaction } from './login/local/store.ts';
import { insertUsedJtis, storedKey } from './oauth/used-jti-store.ts';
import { insertSession, revokeSessionById } from './session/store.ts';

const DAY = 86_400;
const LIFETIMES = { idleSeconds: 12 * 3600, absoluteSeconds: 7 * DAY };

describe('housekeeping: ended sessions, expired login transactions, stale throttle rows', async () => {
  const { sql } = await createTestDatabase();
  const config = makeConfig();
  const a = await makeAccount(sql, testSecrets(), config, { totp: false });

  const session = async (clock: TestClock) => {
    const { session } = await insertSession(
      sql,
      {
        identityId: a.sub,
        aal: 'aal1',
        amr: ['pwd'],
        authTime: clock.now(),
        pending: null,
        clientIp: null,
        userAgent: null,
      },
      LIFETIMES,
      clock.now(),
    );
    return session.id;
  };
  const transaction = async (id: string, clock: TestClock) =>
    await insertLoginTransaction(sql, {
      id,
      challengeId: `lch_${id}`,
      cookieHash: id,
      subject: a.email,
      identityId: a.sub,
      directory: null,
      createdAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 600_000),
    });
  const throttle = async (key: string, clock: TestClock, lockedForSeconds: number | null) =>
    await sql`insert into login_throttle (scope, key, failures, locked_until, updated_at)
              values ('ip', ${key}, 3,
                      ${lockedForSeconds === null ? null : new Date(clock.now().getTime() + lockedForSeconds * 1000)},
                      ${clock.now()})`;
  const remaining = async () => ({
    sessions: (await sql`select id from sessions order by id`).map((r) => r.id).sort(),
    transactions: (await sql`select id from login_transactions`).map((r) => r.id).sort(),
    throttle: (await sql`select key from login_throttle`).map((r) => r.key).sort(),
    counters: (await sql`select key from request_counters`).map((r) => r.key).sort(),
  });

  it('deletes only what ended beyond its retention, as the clock moves', async () => {
    const clock = new TestClock(Date.parse('2026-01-01T00:00:00Z'));
    const revokedLongAgo = await session(clock);
    await revokeSessionById(sql, revokedLongAgo, clock.now());
    await session(clock); // never used again: idle-expired 12 h later
    await transaction('ltx_old', clock);
    await throttle('192.0.2.1', clock, null);
    await throttle('192.0.2.2', clock, 40 * DAY); // a lock still in force outlives the counter window
    await countRequest(sql, 'login_start', '192.0.2.9', 60, clock.now());

    clock.advance(29 * DAY);
    const revokedRecently = await session(clock);
    await revokeSessionById(sql, revokedRecently, clock.now());
    clock.advance(2 * DAY); // now 31 days after the first rows
    const live = await session(clock);
    await transaction('ltx_live', clock);
    await throttle('192.0.2.3', clock, null);
    await countRequest(sql, 'login_start', '192.0.2.10', 60, clock.now());
    // DPoP proof and client assertion ids: one that can no longer be accepted, one that still could.
    await insertUsedJtis(sql, [
      { key: 'dpop:spent', expiresAt: new Date(clock.now().getTime() - 1000) },
      { key: 'dpop:fresh', expiresAt: new Date(clock.now().getTime() + 70_000) },
    ]);

    await sql`insert into federated_transactions
                (state_hash, cookie_hash, provider, purpose, nonce, code_verifier, return_to, created_at, expires_at)
              values ('st-old', 'c', 'corp', 'sign_in', 'n', 'v', '/', ${clock.now()},
                      ${new Date(clock.now().getTime() - 1000)}),
                     ('st-live', 'c', 'corp', 'sign_in', 'n', 'v', '/', ${clock.now()},
                      ${new Date(clock.now().getTime() + 600_000)})`;
    await sql`insert into web3_messages (nonce, cookie_hash, provider, purpose, message, created_at, expires_at)
              values ('nonce-old', 'c', 'ethereum', 'sign_in', 'm', ${clock.now()},
                      ${new Date(clock.now().getTime() - 1000)}),
                     ('nonce-live', 'c', 'ethereum', 'sign_in', 'm', ${clock.now()},
                      ${new Date(clock.now().getTime() + 300_000)})`;
    await sql`insert into farcaster_channels (nonce, cookie_hash, channel_token, purpose, created_at, expires_at)
              values ('channel-old', 'c', 't1', 'sign_in', ${clock.now()}, ${new Date(clock.now().getTime() - 1000)}),
                     ('channel-live', 'c', 't2', 'sign_in', ${clock.now()},
                      ${new Date(clock.now().getTime() + 300_000)})`;
    await sql`insert into saml_requests (id, connection, cookie_hash, return_to, created_at, expires_at)
              values ('_req-old', 'corp', 'c', '/', ${clock.now()}, ${new Date(clock.now().getTime() - 1000)}),
                     ('_req-live', 'corp', 'c', '/', ${clock.now()}, ${new Date(clock.now().getTime() + 600_000)})`;
    await sql`insert into saml_assertion_ids (connection, assertion_id, expires_at)
              values ('corp', '_a-old', ${new Date(clock.now().getTime() - 1000)}),
                     ('corp', '_a-live', ${new Date(clock.now().getTime() + 300_000)})`;
    const report = await runHousekeeping(sql, clock.now());
    assert.deepEqual(report, {
      sessions: 2,
      loginTransactions: 1,
      throttleRows: 1,
      requestWindows: 1,
      verifications: 0,
      federatedTransactions: 1,
      passkeyChallenges: 0,
      web3Messages: 1,
      farcasterChannels: 1,
      samlState: 2,
      usedJtis: 1,
      pushedRequests: 0,
      authorizationCodes: 0,
      refreshTokens: 0,
      revokedAccessTokens: 0,
      deviceCodes: 0,
    });
    assert.deepEqual(
      (await sql`select encode(key, 'hex') as key from oauth_used_jtis`).map((r) => r.key),
      [storedKey('dpop:fresh')],
    );
    assert.deepEqual(await remaining(), {
      sessions: [live, revokedRecently].sort(),
      transactions: ['ltx_live'],
      throttle: ['192.0.2.2', '192.0.2.3'],
      counters: ['192.0.2.10'],
    });

    clock.advance(DAY + 601);
    assert.deepEqual(await runHousekeeping(sql, clock.now()), {
      sessions: 0,
      loginTransactions: 1,
      throttleRows: 1,
      requestWindows: 1,
      verifications: 0,
      federatedTransactions: 1,
      passkeyChallenges: 0,
      web3Messages: 1,
      farcasterChannels: 1,
      samlState: 2,
      usedJtis: 1,
      pushedRequests: 0,
      authorizationCodes: 0,
      refreshTokens: 0,
      revokedAccessTokens: 0,
      deviceCodes: 0,
    });
  });

  it('runs every hour once started, and stops cleanly', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const clock = new TestClock(Date.parse('2027-01-01T00:00:00Z'));
      await transaction('ltx_scheduled', clock);
      clock.advance(2 * DAY);
      const logged: unknown[] = [];
      let chainings = 0;
      const housekeeping = startHousekeeping({
        sql,
        clock: clock.now,
        log: { info: (report: unknown, message: string) => logged.push([report, message]), warn: () => {} } as never,
        // Records an earlier change committed without chaining them (its node stopped first).
        audit: {
          chainPending: async () => {
            chainings += 1;
            return 3;
          },
        },
      });
      mock.timers.tick(3_599_000);
      assert.equal((await sql`select 1 from login_transactions where id = 'ltx_scheduled'`).length, 1, 'not yet');
      mock.timers.tick(1000);
      await housekeeping.stop();
      assert.equal((await sql`select 1 from login_transactions where id = 'ltx_scheduled'`).length, 0);
      assert.equal(logged.length, 2);
      assert.equal(chainings, 1, 'one chaining per round, after the purges');
      assert.deepEqual(logged[1], [{ chained: 3 }, 'audit records of earlier changes chained']);
    } finally {
      mock.timers.reset();
    }
  });

  it("forgets spent proof ids every minute, without the hour's other purges", async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const clock = new TestClock(Date.parse('2027-02-01T00:00:00Z'));
      await transaction('ltx_hourly', clock);
      clock.advance(2 * DAY); // the login transaction is now one the hourly purge would delete
      await sql`delete from oauth_used_jtis`;
      await insertUsedJtis(sql, [
        { key: 'dpop:minute-spent', expiresAt: new Date(clock.now().getTime() + 10_000) },
        { key: 'dpop:minute-fresh', expiresAt: new Date(clock.now().getTime() + 130_000) },
      ]);
      // A minute on, when the first timer fires.
      const aMinuteOn = () => new Date(clock.now().getTime() + 60_000);
      const stored = async () =>
        (await sql`select encode(key, 'hex') as key from oauth_used_jtis`).map((r) => r.key as string);
      const warnings: unknown[] = [];
      const start = () =>
        startHousekeeping({
          sql,
          clock: aMinuteOn,
          log: { info: () => {}, warn: (...args: unknown[]) => warnings.push(args) } as never,
          audit: { chainPending: async () => 0 },
        });
      const housekeeping = start();
      mock.timers.tick(59_000);
      await housekeeping.stop();
      assert.equal((await stored()).length, 2, 'not before the minute');
      const again = start();
      mock.timers.tick(60_000);
      await again.stop();
      assert.deepEqual(await stored(), [storedKey('dpop:minute-fresh')]);
      assert.equal(
        (await sql`select 1 from login_transactions where id = 'ltx_hourly'`).length,
        1,
        'the hourly purges did not run',
      );
      assert.deepEqual(warnings, []);
    } finally {
      mock.timers.reset();
    }
  });
});
