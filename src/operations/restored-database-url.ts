// The database a restore loaded and the one the restored configuration names can differ: the backup came from
// another host, or `--database-url` pointed the restore elsewhere. Left alone, the service would start on a database
// that did not get the restore, and nothing would say so. The restored file is made to name the database that holds
// the restored rows, and the restore reports what it did.
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { editedToml } from '../config/toml-edit.ts';

/** What restore did with database.url: `''` stands for the embedded server (no URL). */
export interface DatabaseUrlOutcome {
  /** What the backup's configuration named. */
  named: string;
  /** What the restored file names now: the database the rows went into. */
  now: string;
}

type Table = Record<string, unknown>;

/** Points `configFile`'s database.url at `restoredInto` when it names another database; says what it did. */
export function pointConfigAt(configFile: string, restoredInto: string): DatabaseUrlOutcome {
  const text = readFileSync(configFile, 'utf8');
  const raw = parse(text) as Table;
  const database = (raw.database ?? {}) as Table;
  const named = typeof database.url === 'string' ? database.url : '';
  if (named === restoredInto) return { named, now: named };
  const { url: _replaced, ...rest } = database;
  raw.database = restoredInto === '' ? rest : { ...rest, url: restoredInto };
  // The mode and owner stay: the file was just written and given those of the one it replaced.
  writeFileSync(configFile, editedToml(text, raw));
  return { named, now: restoredInto };
}
