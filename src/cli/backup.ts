// `gatehouse backup <path>`: a thin wrapper over src/operations/backup.ts (commands.ts declares its options, the
// work is there).
import { readMigrations } from '../db/migrate.ts';
import { createBackup } from '../operations/backup.ts';
import type { CommandInput, OptionValues } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import type { BACKUP_OPTIONS } from './options.ts';
import { progressReporter } from './progress-bar.ts';

/** `gatehouse backup <path>`: commander has checked there is exactly one path. */
export async function backup({
  values,
  positionals: [archive = ''],
}: CommandInput<OptionValues<typeof BACKUP_OPTIONS>>): Promise<number> {
  const { config, file } = loadCommandConfig({ configPath: values.config }, { needsInstance: true });
  const bar = progressReporter(process.stderr, 'backup');
  const result = await withDatabase(
    chooseDatabaseUrl(values['database-url'], config.database.url),
    config.data.dir,
    (sql) =>
      createBackup({
        sql,
        archive,
        configFile: file,
        secretsDir: config.secrets.dir,
        migrations: readMigrations(),
        progress: bar.sink,
      }),
  ).finally(() => bar.end());
  process.stdout.write(
    `Backed up ${result.tables} tables (${result.rows} rows), the configuration and the secret files to ${result.archive} (mode 0600)\n` +
      `SHA-256 ${result.checksum} (stored in ${result.checksumFile})\n` +
      'The archive holds every secret of this installation: keep it as safe as the host itself.\n',
  );
  return 0;
}
