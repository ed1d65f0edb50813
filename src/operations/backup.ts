// `gatehouse backup <path>`: the database (one consistent snapshot, database-copy.ts), the configuration file and
// every secret file in one archive (backup-archive.ts). Secrets belong in it: without the keys that sealed them, the
// database's sealed TOTP seeds, signing keys and audit chain are useless.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Migration } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import { VERSION } from '../version.ts';
import { BACKUP_FORMAT, type BackupManifest, checksumFileOf, writeArchive } from './backup-archive.ts';
import { copyOut } from './database-copy.ts';
import { OperationRefused } from './errors.ts';
import { type ProgressSink, silent } from './progress.ts';

export interface BackupOptions {
  sql: Sql;
  archive: string;
  /** The configuration file, or null for a development instance (which has none). */
  configFile: string | null;
  secretsDir: string;
  /** This release's migrations: each applied one's SQL goes into the archive, so a restore rebuilds that schema. */
  migrations: Migration[];
  progress?: ProgressSink;
  clock?: () => Date;
}

export interface BackupResult {
  archive: string;
  checksum: string;
  checksumFile: string;
  tables: number;
  rows: number;
}

/**
 * Copies and temporary files that releases before 1.1 left in secrets.dir at each `gatehouse config` call
 * (`<name>.bak-<time>`, `<name>.tmp-<pid>`): not secrets the service reads, so not archived. Config commands now keep
 * their copies in config-backups/ beside gatehouse.toml.
 */
const LEFTOVER = /\.(bak|tmp)-[^/]*$/;

function refuseTarget(archive: string) {
  if (existsSync(archive)) throw new OperationRefused(`${archive} already exists; choose a new path for the backup`);
  if (!existsSync(path.dirname(archive)))
    throw new OperationRefused(`the directory ${path.dirname(archive)} does not exist`);
}

export async function createBackup(options: BackupOptions): Promise<BackupResult> {
  const archive = path.resolve(options.archive);
  refuseTarget(archive);
  const progress = options.progress ?? silent;
  const stage = mkdtempSync(path.join(tmpdir(), 'gatehouse-backup-'));
  try {
    mkdirSync(path.join(stage, 'database/data'), { recursive: true });
    mkdirSync(path.join(stage, 'database/schema'));
    const snapshot = await copyOut(
      options.sql,
      (table) => path.join(stage, 'database/data', `${table}.copy`),
      (table, done, total) => progress({ done, total, label: `${table.table} (${table.rows} rows)` }),
    );
    const known = new Map(options.migrations.map((m) => [m.version, m]));
    for (const applied of snapshot.migrations) {
      const migration = known.get(applied.version);
      if (!migration || migration.checksum !== applied.checksum)
        throw new OperationRefused(
          `the database has migration ${applied.version} (${applied.name}) in a form this release does not know; ` +
            'back it up with the release that applied it',
        );
      writeFileSync(path.join(stage, 'database/schema', migration.file), migration.sql, { mode: 0o600 });
    }
    const entries = ['manifest.json', 'database'];
    let config: string | null = null;
    if (options.configFile) {
      mkdirSync(path.join(stage, 'config'));
      config = path.basename(options.configFile);
      copyFileSync(options.configFile, path.join(stage, 'config', config));
      entries.push('config');
    }
    const secrets = existsSync(options.secretsDir)
      ? readdirSync(options.secretsDir).filter(
          (f) => statSync(path.join(options.secretsDir, f)).isFile() && !LEFTOVER.test(f),
        )
      : [];
    if (secrets.length > 0) {
      mkdirSync(path.join(stage, 'secrets'));
      for (const file of secrets) copyFileSync(path.join(options.secretsDir, file), path.join(stage, 'secrets', file));
      entries.push('secrets');
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      gatehouse_version: VERSION,
      created_at: (options.clock ?? (() => new Date()))().toISOString(),
      database: snapshot,
      files: { config, secrets },
    };
    writeFileSync(path.join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    const checksum = await writeArchive(stage, entries, archive);
    return {
      archive,
      checksum,
      checksumFile: checksumFileOf(archive),
      tables: snapshot.tables.length,
      rows: snapshot.tables.reduce((sum, t) => sum + t.rows, 0),
    };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
