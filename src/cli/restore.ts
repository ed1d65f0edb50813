// `gatehouse restore <path> [--force]`: see src/operations/restore.ts.
import { readMigrations } from '../db/migrate.ts';
import { redactDatabaseUrl } from '../db/pool.ts';
import { restoreBackup } from '../operations/restore.ts';
import { listenerAnswers } from '../operations/service-probe.ts';
import type { CommandInput, OptionValues } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import type { RESTORE_OPTIONS } from './options.ts';
import { progressReporter } from './progress-bar.ts';

const shown = (url: string) => (url === '' ? 'the embedded server' : redactDatabaseUrl(url));

/** `gatehouse restore <path>`: commander has checked there is exactly one path. */
export async function restore({
  values,
  positionals: [archive = ''],
}: CommandInput<OptionValues<typeof RESTORE_OPTIONS>>): Promise<number> {
  const { config, file, instance } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const bar = progressReporter(process.stderr, 'restore');
  const running = async () =>
    instance ? `development instance pid ${instance.pid}` : await listenerAnswers(config.server.listen);
  const databaseUrl = chooseDatabaseUrl(values['database-url'], config.database.url);
  const result = await withDatabase(databaseUrl, config.data.dir, (sql) =>
    restoreBackup({
      sql,
      archive,
      force: values.force === true,
      configFile: file,
      databaseUrl,
      secretsDir: config.secrets.dir,
      migrations: readMigrations(),
      running,
      progress: bar.sink,
    }),
  ).finally(() => bar.end());
  const lines = [
    `Checksum verified (SHA-256 ${result.checksum})`,
    `Restored ${result.tables} tables (${result.rows} rows) from the backup of ${result.createdAt} (Gatehouse ${result.madeBy})`,
  ];
  if (result.migratedForward.length > 0) lines.push(`Migrated forward: ${result.migratedForward.join(', ')}`);
  if (result.schema.kind === 'foreign')
    lines.push("The schema is not this release's: install the release that made the backup before starting.");
  lines.push(
    `Restored ${result.secrets.restored} secret files into ${config.secrets.dir}` +
      (result.secrets.previous ? ` (the previous ones are in ${result.secrets.previous})` : ''),
  );
  if (result.config) {
    lines.push(
      `Restored the configuration to ${result.config.restored}` +
        (result.config.previous ? ` (the previous one is ${result.config.previous})` : ''),
    );
    const { named, now } = result.config.databaseUrl;
    lines.push(
      named === now
        ? `database.url: kept ${shown(now)}, the database restored into`
        : `database.url: set to ${shown(now)}, the database restored into (the backup's configuration named ${shown(named)})`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\nStart the service when ready: systemctl start gatehouse\n`);
  return 0;
}
