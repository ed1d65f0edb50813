// `gatehouse update` and `gatehouse upgrade --channel <channel>`: see src/operations/upgrade.ts.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Channel } from '../../packaging/build/release-layout.ts';
import { readMigrations } from '../db/migrate.ts';
import { createBackup } from '../operations/backup.ts';
import { OperationRefused } from '../operations/errors.ts';
import { localUrlOf } from '../operations/service-probe.ts';
import { upgrade } from '../operations/upgrade.ts';
import { type CommandInput, type OptionValues, UsageError } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import type { UPDATE_OPTIONS, UPGRADE_OPTIONS } from './options.ts';

interface UpdateArgs {
  /** null: the channel the installation follows. */
  channel: Channel | null;
  /** Take a backup before migrating (no --no-backup). */
  backup: boolean;
  from: string | undefined;
  root: string;
  healthTimeoutSeconds: number;
  configPath: string | undefined;
  databaseUrl: string | undefined;
}

function updateArgs(values: OptionValues<typeof UPDATE_OPTIONS>, channel: Channel | null): UpdateArgs {
  const seconds = Number(values['health-timeout']);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new UsageError('--health-timeout must be a whole number of seconds');
  return {
    channel,
    backup: values['no-backup'] !== true,
    from: values.from,
    root: values.root ?? '/',
    healthTimeoutSeconds: seconds,
    configPath: values.config,
    databaseUrl: values['database-url'],
  };
}

/** `gatehouse update`: the newest release of the channel the installation follows. */
export const update = async ({ values }: CommandInput<OptionValues<typeof UPDATE_OPTIONS>>) =>
  runUpdate(updateArgs(values, null));

/** `gatehouse upgrade --channel <channel>`: commander has checked the channel is one of UPGRADE_OPTIONS' choices. */
export const upgradeChannel = async ({ values }: CommandInput<OptionValues<typeof UPGRADE_OPTIONS>>) =>
  runUpdate(updateArgs(values, values.channel as Channel));

async function runUpdate(options: UpdateArgs): Promise<number> {
  const from = options.from ?? process.env.GATEHOUSE_RELEASES;
  if (!from) throw new UsageError('no release location: pass --from URL|DIR (or set GATEHOUSE_RELEASES)');
  const { config, file, development } = loadCommandConfig({ configPath: options.configPath });
  if (!file || development)
    throw new OperationRefused(
      'no configuration file: update works on an installation made by install.sh (pass --config FILE)',
    );
  const result = await withDatabase(
    chooseDatabaseUrl(options.databaseUrl, config.database.url),
    config.data.dir,
    (sql) =>
      upgrade({
        from,
        channel: options.channel,
        root: options.root,
        arch: process.arch === 'arm64' ? 'arm64' : 'x64',
        configFile: file,
        sql,
        databaseUrl: options.databaseUrl,
        healthUrl: localUrlOf(config.server.listen, '/health/ready', config.tls.mode !== 'external'),
        healthTimeoutMs: options.healthTimeoutSeconds * 1000,
        say: (line) => process.stdout.write(`${line}\n`),
        backupFirst: options.backup
          ? async () => {
              const archive = path.join(
                config.data.dir,
                'backups',
                `before-update-${new Date().toISOString().replace(/[:.]/g, '-')}.tar.gz`,
              );
              mkdirSync(path.dirname(archive), { recursive: true, mode: 0o700 });
              const result = await createBackup({
                sql,
                archive,
                configFile: file,
                secretsDir: config.secrets.dir,
                migrations: readMigrations(),
              });
              return result.archive;
            }
          : undefined,
      }),
  );
  process.stdout.write(
    result.outcome === 'current'
      ? `Gatehouse ${result.version} is the newest release of the ${result.channel} channel; nothing to do.\n`
      : `Gatehouse ${result.from} -> ${result.to} (${result.channel} channel): restarted and healthy.\n`,
  );
  return 0;
}
