// `gatehouse backup <path>` and `gatehouse restore <path>`: thin wrappers over src/operations/backup.ts and
// restore.ts (parsing here, the work there).
import { readMigrations } from '../db/migrate.ts';
import { createBackup } from '../operations/backup.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import { progressReporter } from './progress-bar.ts';

export interface BackupArgs {
  archive: string;
  configPath: string | undefined;
  databaseUrl: string | undefined;
}

export function parseBackupArgs(args: string[]): BackupArgs {
  const { values, positionals } = parseFlags(args, {
    config: { type: 'string' },
    'database-url': { type: 'string' },
  });
  const [archive] = positionals;
  if (!archive || positionals.length !== 1)
    throw new UsageError('Usage: gatehouse backup <path> [--config FILE] [--database-url URL]');
  return { archive, configPath: values.config, databaseUrl: values['database-url'] };
}

export async function runBackup(options: BackupArgs): Promise<number> {
  const { config, file } = loadCommandConfig({ configPath: options.configPath }, { needsInstance: true });
  const bar = progressReporter(process.stderr, 'backup');
  const result = await withDatabase(
    chooseDatabaseUrl(options.databaseUrl, config.database.url),
    config.data.dir,
    (sql) =>
      createBackup({
        sql,
        archive: options.archive,
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

export const backupCommand: Command = {
  summary: 'backup <path>: database snapshot, configuration and secrets in one archive (0600) with a checksum.',
  run: async (args) => runBackup(parseBackupArgs(args)),
};
