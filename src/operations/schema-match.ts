// Whether a backup's schema is this release's. Gatehouse's schema is its list of checksummed migrations (src/db/
// migrate.ts); there are no minor schema changes, so any difference in that list counts as a different schema and a
// restore asks for --force (docs/decisions.md "Backup format").
import type { Migration } from '../db/migrate.ts';
import type { AppliedMigration } from './database-copy.ts';

export type SchemaMatch =
  | { kind: 'same' }
  /** The backup's migrations are a prefix of this release's: restorable, then migrated forward. */
  | { kind: 'older'; pending: string[] }
  /** The backup has migrations this release lacks or has in another form: restorable only as it is. */
  | { kind: 'foreign'; unknown: string[] };

const label = (m: { version: number; name: string }) => `${String(m.version).padStart(4, '0')}_${m.name}`;

export function matchSchema(backup: AppliedMigration[], release: Migration[]): SchemaMatch {
  const known = new Map(release.map((m) => [m.version, m]));
  const unknown = backup.filter((m) => known.get(m.version)?.checksum !== m.checksum).map(label);
  if (unknown.length > 0) return { kind: 'foreign', unknown };
  const inBackup = new Set(backup.map((m) => m.version));
  const pending = release.filter((m) => !inBackup.has(m.version)).map(label);
  return pending.length === 0 ? { kind: 'same' } : { kind: 'older', pending };
}

export function describeMismatch(match: Exclude<SchemaMatch, { kind: 'same' }>): string {
  return match.kind === 'older'
    ? `the backup's schema is older than this release's (it lacks ${match.pending.join(', ')}); with --force it is ` +
        'restored and then migrated forward'
    : `the backup's schema is not this release's (${match.unknown.join(', ')} unknown here); with --force it is ` +
        'restored as it is, and only the release that made it can serve it';
}
