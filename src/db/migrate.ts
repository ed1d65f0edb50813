// Checksummed migrations: migrations/NNNN_name.sql, applied in order, each in its own transaction, all under one
// PostgreSQL advisory lock so nodes that start together apply each file exactly once. A file whose content changed
// after it was applied stops startup: the schema would no longer be what the code was written against.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { BUNDLE_ROOT, listFiles, readBundledFile } from '../bundled-files.ts';
import type { Executor, Sql } from './pool.ts';

/** migrations/ in a checkout; the embedded copy in the release executable (bundled-files.ts). */
export const MIGRATIONS_DIR = `${BUNDLE_ROOT}migrations/`;

/** Arbitrary constant; only Gatehouse's migrator takes this advisory lock. */
export const MIGRATION_LOCK = 0x6761_7465; // "gate"

export interface Migration {
  version: number;
  name: string;
  file: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const migrations: Migration[] = [];
  for (const file of listFiles(dir)) {
    if (!file.endsWith('.sql')) continue;
    const match = /^(\d{4})_([a-z0-9_]+)\.sql$/.exec(file);
    if (!match?.[1] || !match[2]) throw new MigrationError(`Migration file name ${file} must look like 0001_name.sql`);
    const sql = readBundledFile(path.join(dir, file))?.toString('utf8') ?? '';
    const version = Number(match[1]);
    if (migrations.some((m) => m.version === version))
      throw new MigrationError(`Two migration files share version ${match[1]}`);
    migrations.push({ version, name: match[2], file, sql, checksum: createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

/** The table recording applied migrations; restore (src/operations/restore.ts) creates it before loading its rows. */
export async function createMigrationsTable(sql: Executor): Promise<void> {
  await sql`
    create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`;
}

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
}

/** Applies what is pending; returns the files applied by this call. */
export async function migrate(sql: Sql, migrations: Migration[] = readMigrations()): Promise<string[]> {
  const connection = await sql.reserve();
  try {
    await connection`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await createMigrationsTable(connection);
    const applied = new Map(
      (await connection<AppliedRow[]>`select version, name, checksum from schema_migrations`).map((r) => [
        r.version,
        r,
      ]),
    );
    verifyApplied(applied, migrations);
    const done: string[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      try {
        await connection.unsafe('begin');
        await connection.unsafe(migration.sql);
        await connection`
          insert into schema_migrations (version, name, checksum)
          values (${migration.version}, ${migration.name}, ${migration.checksum})`;
        await connection.unsafe('commit');
      } catch (error) {
        await connection.unsafe('rollback').catch(() => {});
        throw new MigrationError(`Migration ${migration.file} failed: ${(error as Error).message}`, { cause: error });
      }
      done.push(migration.file);
    }
    return done;
  } finally {
    await connection`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
    connection.release();
  }
}

function verifyApplied(applied: Map<number, AppliedRow>, migrations: Migration[]): void {
  for (const migration of migrations) {
    const row = applied.get(migration.version);
    if (row && row.checksum !== migration.checksum)
      throw new MigrationError(
        `Migration ${migration.file} was changed after it was applied (recorded checksum ${row.checksum.slice(0, 12)}…, file ${migration.checksum.slice(0, 12)}…). Restore the original file and add a new migration instead.`,
      );
  }
  const known = new Set(migrations.map((m) => m.version));
  for (const row of applied.values())
    if (!known.has(row.version))
      throw new MigrationError(
        `The database has migration ${String(row.version).padStart(4, '0')}_${row.name}, which this version of Gatehouse does not know; run the newer version or restore a matching backup.`,
      );
}

/** True when every migration this code knows is recorded as applied. Used by readiness. */
export async function migrationsApplied(sql: Sql, migrations: Migration[]): Promise<boolean> {
  return (await pendingMigrations(sql, migrations)).length === 0;
}

/** Migrations this code knows that the database has not recorded (all of them before the first migrate). */
export async function pendingMigrations(sql: Sql, migrations: Migration[]): Promise<Migration[]> {
  const rows = await sql<{ version: number }[]>`select version from schema_migrations`.catch((error: unknown) => {
    if ((error as { code?: string }).code === '42P01') return []; // undefined_table: never migrated
    throw error;
  });
  const applied = new Set(rows.map((r) => r.version));
  return migrations.filter((m) => !applied.has(m.version));
}
