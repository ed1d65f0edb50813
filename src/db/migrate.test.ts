import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { runCli } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { createTestDatabase } from '../../test/helpers/database.ts';
import {
  MIGRATION_LOCK,
  MIGRATIONS_DIR,
  MigrationError,
  migrate,
  migrationsApplied,
  readMigrations,
} from './migrate.ts';

const all = readMigrations();

describe('database migrations', () => {
  test('a fresh database gets every migration, recorded with its checksum', async () => {
    const { sql } = await createTestDatabase({ migrated: false });
    const applied = await migrate(sql, all);
    assert.deepEqual(
      applied,
      all.map((m) => m.file),
    );
    const rows = await sql<
      { version: number; checksum: string }[]
    >`select version, checksum from schema_migrations order by version`;
    assert.deepEqual(
      rows.map((r) => ({ ...r })),
      all.map((m) => ({ version: m.version, checksum: m.checksum })),
    );
    assert.equal(await migrationsApplied(sql, all), true);
  });

  test('a second start applies nothing', async () => {
    const { sql } = await createTestDatabase({ migrated: false });
    await migrate(sql, all);
    assert.deepEqual(await migrate(sql, all), []);
  });

  test('an applied migration whose file changed stops startup, naming the file', async () => {
    const { sql } = await createTestDatabase({ migrated: false });
    const dir = scratchDir();
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    await migrate(sql, readMigrations(dir));
    const first = all[0];
    assert.ok(first);
    writeFileSync(path.join(dir, first.file), `${first.sql}\n-- an innocent-looking edit\n`);
    await assert.rejects(migrate(sql, readMigrations(dir)), (error: unknown) => {
      assert.ok(error instanceof MigrationError);
      assert.match(error.message, new RegExp(`^Migration ${first.file} was changed after it was applied`));
      return true;
    });
  });

  test('a database with a migration this version does not know is refused', async () => {
    const { sql } = await createTestDatabase();
    await sql`insert into schema_migrations (version, name, checksum) values (9999, 'from_the_future', 'x')`;
    await assert.rejects(
      migrate(sql, all),
      /database has migration 9999_from_the_future, which this version of Gatehouse does not know/,
    );
  });

  test('a failing migration rolls back entirely and names its file', async () => {
    const { sql } = await createTestDatabase({ migrated: false });
    const dir = scratchDir();
    writeFileSync(path.join(dir, '0001_ok.sql'), 'create table kept (id int);');
    writeFileSync(path.join(dir, '0002_broken.sql'), 'create table half (id int);\nselect no_such_function();');
    await assert.rejects(
      migrate(sql, readMigrations(dir)),
      /^MigrationError: Migration 0002_broken.sql failed: function no_such_function\(\) does not exist/,
    );
    const [half] = await sql`select to_regclass('half') as t`;
    assert.equal(half?.t, null);
    const versions = await sql`select version from schema_migrations`;
    assert.deepEqual(
      versions.map((r) => r.version),
      [1],
    );
  });

  test('file names must carry a four-digit version', () => {
    const dir = scratchDir();
    writeFileSync(path.join(dir, '1_bad.sql'), 'select 1;');
    assert.throws(() => readMigrations(dir), /Migration file name 1_bad.sql must look like 0001_name.sql/);
  });

  test('two processes started together apply each migration exactly once', async () => {
    const { sql, url } = await createTestDatabase({ migrated: false });
    // The test holds the migration lock first, so both processes must queue behind it: the overlap is certain,
    // not a matter of how fast each one starts.
    const holder = await sql.reserve();
    await holder`select pg_advisory_lock(${MIGRATION_LOCK})`;
    const running = Promise.all([
      runCli(['migrate', '--database-url', url]),
      runCli(['migrate', '--database-url', url]),
    ]);
    const waiting = async () => {
      const [row] = await sql<{ n: number }[]>`
        select count(*)::int as n from pg_locks l join pg_database d on d.oid = l.database
        where l.locktype = 'advisory' and l.objid = ${MIGRATION_LOCK} and not l.granted
          and d.datname = current_database()`;
      return row?.n ?? 0;
    };
    try {
      // Poll for the state, bounded; nothing here depends on how long anything takes.
      for (let i = 0; i < 600 && (await waiting()) < 2; i += 1) await delay(50);
      assert.equal(await waiting(), 2, 'both processes wait for the migration lock');
    } finally {
      await holder`select pg_advisory_unlock(${MIGRATION_LOCK})`;
      holder.release();
    }

    const [a, b] = await running;
    // A second application of any file would fail (its CREATE TABLEs exist), so both succeeding proves the lock held.
    assert.equal(a.code, 0, a.stderr);
    assert.equal(b.code, 0, b.stderr);
    const outputs = [a.stdout, b.stdout].sort();
    assert.deepEqual(outputs, [`Applied: ${all.map((m) => m.file).join(', ')}\n`, 'No pending migrations.\n'].sort());
    const [count] = await sql<{ n: number; d: number }[]>`
      select count(*)::int as n, count(distinct version)::int as d from schema_migrations`;
    assert.deepEqual({ ...count }, { n: all.length, d: all.length });
  });
});
