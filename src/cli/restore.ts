// `gatehouse restore <path> [--force]`: see src/operations/restore.ts.
import { readMigrations } from '../db/migrate.ts';
import { restoreBackup } from '../operations/restore.ts';
import { listenerAnswers } from '../operations/service-probe.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import { progressReporter } from './progress-bar.ts';

export interface RestoreArgs {
  archive: string;
  force: boolean;
  configPath: string | undefined;
  databaseUrl: string | undefined;
}

export function parseRestoreArgs(args: string[]): RestoreArgs {
  const { values, positionals } = parseFlags(args, {
    force: { type: 'boolean', default: false },
    config: { type: 'string' },
    'database-url': { type: 'string' },
  });
  const [archive] = positionals;
  if (!archive || positionals.length !== 1)
    throw new UsageError('Usage: gatehouse restore <path> [--force] [--config FILE] [--database-url URL]');
  return { archive, force: values.force === true, configPath: values.config, databaseUrl: values['database-url'] };
}

export async function runRestore(options: RestoreArgs): Promise<number> {
  const { config, file, instance } = loadCommandConfig({ configPath: options.configPath }, { needsInstance: true });
  const bar = progressReporter(process.stderr, 'restore');
  const running = async () =>
    instance ? `development instance pid ${instance.pid}` : await listenerAnswers(config.server.listen);
  const result = await withDatabase(
    chooseDatabaseUrl(options.databaseUrl, config.database.url),
    config.data.dir,
    (sql) =>
      restoreBackup({
        sql,
        archive: options.archive,
        force: options.force,
        configFile: file,
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
  if (result.config)
    lines.push(
      `Restored the configuration to ${result.config.restored}` +
        (result.config.previous ? ` (the previous one is ${result.config.previous})` : ''),
    );
  process.stdout.write(`${lines.join('\n')}\nStart the service when ready: systemctl start gatehouse\n`);
  return 0;
}

export const restoreCommand: Command = {
  summary: 'restore <path> [--force]: put a backup back (service stopped; --force for another schema).',
  run: async (args) => runRestore(parseRestoreArgs(args)),
};
