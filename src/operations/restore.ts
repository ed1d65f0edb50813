// `gatehouse restore <path>`: checks the archive against its checksum, refuses while the service runs and, without
// --force, when the backup's schema is not this release's (schema-match.ts); then, in ONE transaction, replaces the
// database's schema with the backup's (its own migration files, then its rows) so a failure leaves the database as it
// was. The secret files and the configuration file come back after the commit; the ones they replace are kept
// beside them, and the restored file's database.url names the database restored into (restored-database-url.ts).
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMigrationsTable, type Migration, migrate } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import { extractArchive, verifyArchive } from './backup-archive.ts';
import { copyIn, listTables, loadOrder, restoreSequences } from './database-copy.ts';
import { OperationRefused } from './errors.ts';
import { type ProgressSink, silent } from './progress.ts';
import { type DatabaseUrlOutcome, pointConfigAt } from './restored-database-url.ts';
import { describeMismatch, matchSchema, type SchemaMatch } from './schema-match.ts';

export interface RestoreOptions {
  sql: Sql;
  archive: string;
  force: boolean;
  /** Where the backup's configuration file goes; null (development instance) leaves it in the archive. */
  configFile: string | null;
  /** The database being restored into ('' for the embedded server): what the restored file's database.url becomes. */
  databaseUrl: string;
  secretsDir: string;
  migrations: Migration[];
  /** Why the service counts as running, or null (service-probe.ts). */
  running: () => Promise<string | null>;
  progress?: ProgressSink;
  clock?: () => Date;
}

export interface RestoreResult {
  checksum: string;
  createdAt: string;
  madeBy: string;
  tables: number;
  rows: number;
  schema: SchemaMatch;
  migratedForward: string[];
  config: { restored: string; previous: string | null; databaseUrl: DatabaseUrlOutcome } | null;
  secrets: { restored: number; previous: string | null };
}

const stamp = (date: Date) => date.toISOString().replace(/[:.]/g, '-');

async function loadDatabase(
  sql: Sql,
  stage: string,
  manifest: Awaited<ReturnType<typeof extractArchive>>,
  progress: ProgressSink,
) {
  const schemaDir = path.join(stage, 'database/schema');
  const files = readdirSync(schemaDir).sort();
  const expected = new Map(manifest.database.tables.map((t) => [t.table, t.rows]));
  return sql.begin(async (tx) => {
    const [{ schema } = { schema: 'public' }] = await tx<{ schema: string }[]>`select current_schema() as schema`;
    await tx`drop schema if exists ${tx(schema)} cascade`;
    await tx`create schema ${tx(schema)}`;
    await createMigrationsTable(tx);
    for (const file of files) await tx.unsafe(readFileSync(path.join(schemaDir, file), 'utf8'));
    const tables = await listTables(tx);
    const missing = [...expected.keys()].filter((t) => !tables.includes(t));
    if (missing.length > 0)
      throw new OperationRefused(`the backup's schema files do not create ${missing.join(', ')}; nothing was restored`);
    // Rows a migration seeds are in the backup too, as they were then.
    if (tables.length > 0) await tx`truncate ${tx(tables)} cascade`;
    const order = await loadOrder(
      tx,
      tables.filter((t) => expected.has(t)),
    );
    let rows = 0;
    for (const [index, table] of order.entries()) {
      const loaded = await copyIn(tx, table, path.join(stage, 'database/data', `${table}.copy`));
      if (loaded !== expected.get(table))
        throw new OperationRefused(
          `${table}: the manifest lists ${expected.get(table)} rows, the archive holds ${loaded}`,
        );
      rows += loaded;
      progress({ done: index + 1, total: order.length, label: `${table} (${loaded} rows)` });
    }
    await restoreSequences(tx, manifest.database.sequences);
    return { tables: order.length, rows };
  });
}

/** Moves `target` aside as `<target>.before-restore-<time>` when it exists; returns where it went. */
function keepAside(target: string, now: Date): string | null {
  if (!existsSync(target)) return null;
  const aside = `${target}.before-restore-${stamp(now)}`;
  renameSync(target, aside);
  return aside;
}

/** Gives `target` the owner (and, for a file, the mode) of what it replaces: the service user must still read it. */
function ownedLike(target: string, previous: string | null, keepMode: boolean) {
  if (!previous) return;
  const before = statSync(previous);
  if (keepMode) chmodSync(target, before.mode & 0o777);
  if (process.getuid?.() === 0) chownSync(target, before.uid, before.gid);
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const progress = options.progress ?? silent;
  const now = (options.clock ?? (() => new Date()))();
  const running = await options.running();
  if (running)
    throw new OperationRefused(
      `the service is running (${running}): stop it first (systemctl stop gatehouse, or end the development instance); nothing was restored`,
    );
  const checksum = await verifyArchive(options.archive);
  const stage = mkdtempSync(path.join(tmpdir(), 'gatehouse-restore-'));
  try {
    const manifest = await extractArchive(options.archive, stage);
    const schema = matchSchema(manifest.database.migrations, options.migrations);
    if (schema.kind !== 'same' && !options.force)
      throw new OperationRefused(`${describeMismatch(schema)}; nothing was restored`);
    const loaded = await loadDatabase(options.sql, stage, manifest, progress).catch((error: { code?: string }) => {
      // insufficient_privilege: replacing the schema needs its owner (or the database's).
      if (error.code === '42501')
        throw new OperationRefused(
          `the database user may not replace the schema (${(error as Error).message}): restore as the database's owner; nothing was restored`,
          { cause: error },
        );
      throw error;
    });
    const migratedForward = schema.kind === 'older' ? await migrate(options.sql, options.migrations) : [];

    mkdirSync(path.dirname(options.secretsDir), { recursive: true });
    const previousSecrets = keepAside(options.secretsDir, now);
    mkdirSync(options.secretsDir, { mode: 0o700 });
    ownedLike(options.secretsDir, previousSecrets, false);
    for (const file of manifest.files.secrets) {
      const target = path.join(options.secretsDir, file);
      writeFileSync(target, readFileSync(path.join(stage, 'secrets', file)), { mode: 0o600 });
      ownedLike(target, previousSecrets, false);
    }

    let config: RestoreResult['config'] = null;
    if (manifest.files.config && options.configFile) {
      const previous = existsSync(options.configFile) ? `${options.configFile}.before-restore-${stamp(now)}` : null;
      if (previous) renameSync(options.configFile, previous);
      writeFileSync(options.configFile, readFileSync(path.join(stage, 'config', manifest.files.config)), {
        mode: 0o600,
      });
      ownedLike(options.configFile, previous, true);
      const databaseUrl = pointConfigAt(options.configFile, options.databaseUrl);
      config = { restored: options.configFile, previous, databaseUrl };
    }
    return {
      checksum,
      createdAt: manifest.created_at,
      madeBy: manifest.gatehouse_version,
      ...loaded,
      schema,
      migratedForward,
      config,
      secrets: { restored: manifest.files.secrets.length, previous: previousSecrets },
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
