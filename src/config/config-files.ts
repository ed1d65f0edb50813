// How `gatehouse setup` and `gatehouse config …` write the configuration file and the secret files an edit brings,
// and where they keep the copies they can roll back to. They run as root, while the service runs as its own user and
// must still read what they wrote (packaging/install.sh: gatehouse.toml root:gatehouse 0640, secrets.dir and its
// files owned by the service user, 0700/0600). So a replaced file keeps its owner, group and mode, and a new file
// takes the owner and group of its directory.
import {
  chmodSync,
  closeSync,
  copyFileSync,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

/** How many earlier copies of each file the config commands keep; older ones are removed as new ones are made. */
export const KEPT_BACKUPS = 5;

/**
 * `<directory of gatehouse.toml>/config-backups`: outside secrets.dir, so `gatehouse backup` (which archives
 * secrets.dir) never sweeps the copies up, and out of the service's reach (/etc is read-only to it).
 */
export const backupDirOf = (configFile: string): string => path.join(path.dirname(configFile), 'config-backups');

/**
 * Writes `text` to `file` in one rename. A file it replaces keeps its owner, group and mode; a new file gets
 * `newMode` and the owner and group of its directory. The temporary file sits in the same directory, so the rename
 * is atomic and a crash leaves the old file or the new one, never half of one.
 */
export function replaceFile(file: string, text: string | Buffer, newMode = 0o600): void {
  const like = existsSync(file) ? statSync(file) : null;
  const owner = like ?? statSync(path.dirname(file));
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeFileSync(fd, text);
    // Owner first: chown clears set-id bits, and the mode is set after it.
    if (fstatSync(fd).uid !== owner.uid || fstatSync(fd).gid !== owner.gid) fchownSync(fd, owner.uid, owner.gid);
    fchmodSync(fd, like ? like.mode & 0o7777 : newMode);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, file);
}

/** Puts `backup` back as `file`, with the owner, group and mode `file` has now. */
export const restoreBackup = (backup: string, file: string): void => replaceFile(file, readFileSync(backup));

const stampOf = (now: Date) => now.toISOString().replace(/[:.]/g, '-');

/**
 * Copies `file` into the backup directory of `configFile` as `<name>.<time>` (mode kept, so a secret's copy stays
 * 0600) and removes that name's copies beyond the newest KEPT_BACKUPS. Returns the copy's path.
 */
export function keepBackup(configFile: string, file: string, now: Date): string {
  const dir = backupDirOf(configFile);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const name = path.basename(file);
  const backup = path.join(dir, `${name}.${stampOf(now)}`);
  copyFileSync(file, backup);
  chmodSync(backup, statSync(file).mode & 0o777);
  // The stamps sort as text in time order (ISO 8601, fixed width).
  const copies = readdirSync(dir)
    .filter((entry) => entry.startsWith(`${name}.`) && STAMP.test(entry.slice(name.length + 1)))
    .sort();
  for (const old of copies.slice(0, -KEPT_BACKUPS)) rmSync(path.join(dir, old), { force: true });
  return backup;
}

const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
