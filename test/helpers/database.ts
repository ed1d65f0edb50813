// One real PostgreSQL database per test file, cloned from a template that holds every migration. The template's
// name carries a digest of the migration files (names and contents), so editing or renumbering one builds a fresh one.
import { createHash, randomBytes } from 'node:crypto';
import { after } from 'node:test';
import postgres from 'postgres';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createPool, type Sql } from '../../src/db/pool.ts';

const TEMPLATE_LOCK = 0x7465_7374; // "test"

export function adminUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the tests with `npm test`');
  return url;
}

export function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

function templateName(): string {
  const digest = createHash('sha256');
  for (const m of readMigrations()) digest.update(`${m.file}:${m.checksum}\n`);
  return `gatehouse_tpl_${digest.digest('hex').slice(0, 16)}`;
}

async function ensureTemplate(admin: postgres.Sql, template: string): Promise<void> {
  const [found] = await admin`select 1 from pg_database where datname = ${template}`;
  if (found) return;
  const building = `${template}_build`;
  await admin.unsafe(`drop database if exists ${building} with (force)`);
  await admin.unsafe(`create database ${building}`);
  const sql = createPool(databaseUrl(building), { max: 1, connectTimeoutSeconds: 10 });
  try {
    await migrate(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
  // Renamed only once complete, so a crash mid-build never leaves a half-migrated template behind.
  await admin.unsafe(`alter database ${building} rename to ${template}`);
}

export interface TestDatabase {
  name: string;
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

/** A fresh migrated database; dropped when the test file ends (unless autoDrop is false: benchmarks drop it). */
export async function createTestDatabase(
  options: { migrated?: boolean; autoDrop?: boolean } = {},
): Promise<TestDatabase> {
  const name = `gatehouse_test_${randomBytes(6).toString('hex')}`;
  // max: 1 keeps every statement on one connection, so the session-level lock covers them all.
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    // Serialize template builds and clones across parallel test files.
    await admin`select pg_advisory_lock(${TEMPLATE_LOCK})`;
    if (options.migrated === false) await admin.unsafe(`create database ${name}`);
    else {
      const template = templateName();
      await ensureTemplate(admin, template);
      await admin.unsafe(`create database ${name} template ${template}`);
    }
  } finally {
    await admin`select pg_advisory_unlock(${TEMPLATE_LOCK})`.catch(() => {});
    await admin.end({ timeout: 5 });
  }
  const url = databaseUrl(name);
  const sql = createPool(url, { max: 5, connectTimeoutSeconds: 10 });
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await sql.end({ timeout: 5 });
    const cleanup = postgres(adminUrl(), { max: 1, onnotice: () => {} });
    await cleanup.unsafe(`drop database if exists ${name} with (force)`);
    await cleanup.end({ timeout: 5 });
  };
  if (options.autoDrop !== false) after(drop);
  return { name, url, sql, drop };
}
