import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testSecrets } from '../../test/helpers/app.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import { makeClient, makeIdentity } from '../../test/helpers/oauth-fixtures.ts';
import { runHousekeeping } from '../housekeeping.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('housekeeping of OAuth state: codes, refresh tokens, revoked access token ids', async () => {
  const { sql } = await createTestDatabase();
  const { client } = await makeClient(sql, testSecrets().clientSecret);
  const sub = await makeIdentity(sql);
  const now = new Date('2026-06-01T00:00:00Z');
  const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);

  const grant = async (id: string, expiresAt: Date, revokedAt: Date | null) =>
    await sql`insert into oauth_grants (id, client_id, identity_id, session_id, scope, auth_time, acr, amr,
                                        created_at, expires_at, revoked_at)
              values (${id}, ${client.id}, ${sub}, 'ses_x', 'openid', ${at(-10 * DAY)}, 'aal2', ${['pwd']},
                      ${at(-10 * DAY)}, ${expiresAt}, ${revokedAt})`;
  const token = async (hash: string, grantId: string, expiresAt: Date, rotatedAt: Date | null = null) =>
    await sql`insert into oauth_refresh_tokens (token_hash, grant_id, client_id, created_at, expires_at, rotated_at)
              values (${hash}, ${grantId}, ${client.id}, ${at(-10 * DAY)}, ${expiresAt}, ${rotatedAt})`;
  const code = async (hash: string, grantId: string, expiresAt: Date) =>
    await sql`insert into oauth_authorization_codes (code_hash, grant_id, client_id, identity_id, session_id,
                redirect_uri, scope, code_challenge, auth_time, acr, amr, created_at, expires_at)
              values (${hash}, ${grantId}, ${client.id}, ${sub}, 'ses_x', 'https://app.example.test/callback',
                      'openid', 'challenge', ${at(-DAY)}, 'aal2', ${['pwd']}, ${at(-DAY)}, ${expiresAt})`;

  it('deletes what ended more than a day ago and keeps live families whole, rotated tokens included', async () => {
    await grant('grt_live', at(80 * DAY), null);
    await grant('grt_revoked_long_ago', at(80 * DAY), at(-2 * DAY));
    await grant('grt_revoked_recently', at(80 * DAY), at(-HOUR));
    await grant('grt_expired_long_ago', at(-2 * DAY), null);
    await token('live', 'grt_live', at(30 * DAY));
    await token('rotated-in-live-family', 'grt_live', at(30 * DAY), at(-DAY));
    await token('idle-expired', 'grt_live', at(-2 * DAY));
    await token('of-revoked-long-ago', 'grt_revoked_long_ago', at(30 * DAY));
    await token('of-revoked-recently', 'grt_revoked_recently', at(30 * DAY));
    await token('of-expired-grant', 'grt_expired_long_ago', at(30 * DAY));
    await code('code-expired-long-ago', 'grt_code_1', at(-2 * DAY));
    await code('code-expired-recently', 'grt_code_2', at(-HOUR));
    await code('code-live', 'grt_code_3', at(60_000));
    await sql`insert into oauth_revoked_access_tokens (jti, expires_at)
              values ('jti-expired', ${at(-60_000)}), ('jti-live', ${at(60_000)})`;

    const report = await runHousekeeping(sql, now);
    assert.deepEqual(
      { codes: report.authorizationCodes, tokens: report.refreshTokens, jtis: report.revokedAccessTokens },
      { codes: 1, tokens: 3, jtis: 1 },
    );
    const left = async (query: Promise<{ key: string }[]>) => (await query).map((r) => r.key).sort();
    assert.deepEqual(await left(sql`select token_hash as key from oauth_refresh_tokens`), [
      'live',
      'of-revoked-recently',
      'rotated-in-live-family',
    ]);
    assert.deepEqual(await left(sql`select code_hash as key from oauth_authorization_codes`), [
      'code-expired-recently',
      'code-live',
    ]);
    assert.deepEqual(await left(sql`select jti as key from oauth_revoked_access_tokens`), ['jti-live']);
    assert.equal((await sql`select id from oauth_grants`).length, 4, 'grants stay as the record of consent');
  });

  it('deletes device codes a day after they expired', async () => {
    const device = async (hash: string, expiresAt: Date) =>
      await sql`insert into oauth_device_codes (device_code_hash, user_code_hash, client_id, scope, created_at,
                  expires_at, interval_seconds)
                values (${hash}, ${`user-${hash}`}, ${client.id}, 'openid', ${at(-DAY)}, ${expiresAt}, 5)`;
    await device('device-expired-long-ago', at(-2 * DAY));
    await device('device-expired-recently', at(-HOUR));
    await device('device-live', at(60_000));
    const report = await runHousekeeping(sql, now);
    assert.equal(report.deviceCodes, 1);
    const left = (await sql`select device_code_hash from oauth_device_codes order by 1`).map((r) => r.device_code_hash);
    assert.deepEqual(left, ['device-expired-recently', 'device-live']);
  });
});
