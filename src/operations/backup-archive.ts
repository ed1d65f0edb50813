// The backup file: a gzipped tar of a staging directory (manifest.json, database/, config/, secrets/) written with
// mode 0600, and beside it `<archive>.sha256` in sha256sum's format, so `sha256sum -c` checks it too. The archive
// holds every secret of the installation: it is created exclusively (never over an existing file) and never world-
// or group-readable, whatever the umask.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create, extract } from 'tar';
import type { AppliedMigration, SequenceValue, TableCopy } from './database-copy.ts';
import { OperationRefused } from './errors.ts';

export const BACKUP_FORMAT = 1;

/** manifest.json: what the archive holds, read before anything is restored. */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  gatehouse_version: string;
  created_at: string;
  database: { migrations: AppliedMigration[]; tables: TableCopy[]; sequences: SequenceValue[] };
  /** config/<name> when the installation has a configuration file; secrets/<file> for each secret file. */
  files: { config: string | null; secrets: string[] };
}

export const checksumFileOf = (archive: string) => `${archive}.sha256`;

function hashing() {
  const hash = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, digest: () => hash.digest('hex') };
}

/** Packs `entries` (relative to `stage`) into `archive` (0600, exclusive); returns the SHA-256 it also stores. */
export async function writeArchive(stage: string, entries: string[], archive: string): Promise<string> {
  const partial = path.join(path.dirname(archive), `.${path.basename(archive)}.partial`);
  const hash = hashing();
  try {
    // portable: no user names, uids or times of this host in the headers.
    await pipeline(
      create({ gzip: true, cwd: stage, portable: true }, entries),
      hash.stream,
      createWriteStream(partial, { flags: 'wx', mode: 0o600 }),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(partial, { force: true });
    throw error;
  }
  const digest = hash.digest();
  writeFileSync(checksumFileOf(archive), `${digest}  ${path.basename(archive)}\n`, { mode: 0o600 });
  renameSync(partial, archive);
  return digest;
}

/** Checks the archive against `<archive>.sha256`; returns the digest. */
export async function verifyArchive(archive: string): Promise<string> {
  let recorded: string;
  try {
    recorded = readFileSync(checksumFileOf(archive), 'utf8').split(/\s+/)[0] ?? '';
  } catch {
    throw new OperationRefused(
      `${checksumFileOf(archive)} is missing: the checksum written with the backup is needed to check it`,
    );
  }
  const hash = hashing();
  await pipeline(createReadStream(archive), hash.stream, async (source) => {
    for await (const _ of source);
  });
  const actual = hash.digest();
  if (actual !== recorded)
    throw new OperationRefused(
      `${archive} does not match its checksum (recorded ${recorded.slice(0, 16)}…, file ${actual.slice(0, 16)}…): ` +
        'the archive is damaged or was changed; nothing was restored',
    );
  return actual;
}

/** Unpacks into `into` (a fresh private directory) and reads the manifest. */
export async function extractArchive(archive: string, into: string): Promise<BackupManifest> {
  await extract({ file: archive, cwd: into, strict: true });
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(into, 'manifest.json'), 'utf8'));
  } catch {
    throw new OperationRefused(`${archive} is not a Gatehouse backup (no readable manifest.json)`);
  }
  if (manifest.format !== BACKUP_FORMAT)
    throw new OperationRefused(
      `${archive} has backup format ${String(manifest.format)}; this release reads format ${BACKUP_FORMAT}`,
    );
  return manifest;
}
