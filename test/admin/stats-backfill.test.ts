// Migration 0045 counts the audit records written before it: a database migrated without 0045 holds a log, 0045
// runs, and the overview's figures for that log are what they would be had the trigger seen every record. Records
// appended afterwards are added to the same counters.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditStats } from '../../src/audit/stats.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createTestDatabase } from '../helpers/database.ts';

const { sql } = await createTestDatabase({ migrated: false });
const migrations = readMigrations();
await migrate(
  sql,
  migrations.filter((m) => m.version !== 45),
);

const at = (hh: number, mm = 0) => new Date(Date.UTC(2026, 10, 2, hh, mm));
let seq = 0;
const append = async (when: Date, event: string, subject: string | null, details: Record<string, string> = {}) => {
  seq += 1;
  await sql`insert into audit_events (chain, seq, occurred_at, event, subject, details, prev_hash, hash)
            values ('before', ${seq}, ${when}, ${event}, ${subject}, ${sql.json(details)}, 'x', 'y')`;
};
await append(at(9, 5), 'signin.succeeded', 'usr_a', { method: 'password' });
await append(at(9, 6), 'signin.succeeded', 'usr_a', { method: 'second_factor' });
await append(at(9, 30), 'signin.succeeded', 'usr_b', { method: 'passkey' });
await append(at(10, 0), 'signin.failed', 'usr_c', { reason: 'credentials' });
await append(at(10, 1), 'signup.created', 'usr_d');
await append(at(10, 2), 'client.created', 'cli_1');

const query = { bucket: 'hour', from: at(9).toISOString(), to: at(11).toISOString() };
const none = { sign_ins: 0, sign_ins_by_method: {}, failed_sign_ins: 0, sign_ups: 0, active_identities: 0 };

describe('migration 0045 on a database with audit records', () => {
  test('counts the records already in the log, then keeps counting new ones', async () => {
    await migrate(sql, migrations);
    const before = await auditStats(sql, query, at(12));
    assert.deepEqual(before.buckets, [
      {
        start: at(9).toISOString(),
        ...none,
        sign_ins: 2,
        sign_ins_by_method: { password: 1, passkey: 1 },
        active_identities: 2,
      },
      { start: at(10).toISOString(), ...none, failed_sign_ins: 1, sign_ups: 1 },
    ]);
    assert.equal(before.totals.active_identities, 2);

    await append(at(10, 30), 'signin.succeeded', 'usr_a', { method: 'password' });
    const after = await auditStats(sql, query, at(12));
    assert.deepEqual(after.buckets[1], {
      start: at(10).toISOString(),
      ...none,
      sign_ins: 1,
      sign_ins_by_method: { password: 1 },
      failed_sign_ins: 1,
      sign_ups: 1,
      active_identities: 1,
    });
    assert.equal(after.totals.sign_ins, 3);
    assert.equal(after.totals.active_identities, 2, 'usr_a counts once');
  });
});
