// `gatehouse update` and `gatehouse upgrade --channel <channel>`: see src/operations/upgrade.ts.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Channel } from '../../packaging/build/release-layout.ts';
import { readMigrations } from '../db/migrate.ts';
import { createBackup } from '../operations/backup.ts';
import { OperationRefused } from '../operations/errors.ts';
import { CHANNELS } from '../operations/release-source.ts';
import { localUrlOf } from '../operations/service-probe.ts';
import { upgrade } from '../operations/upgrade.ts';
import { type Command, parseFlags, UsageError } from './args.ts';
import { chooseDatabaseUrl, withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';

export interface UpdateArgs {
  channel: Channel | null;
  /** Skip the backup taken before migrating (--no-backup). */
  backup: boolean;
  from: string | undefined;
  root: string;
  healthTimeoutSeconds: number;
  configPath: string | undefined;
  databaseUrl: string | undefined;
}

const FLAGS = {
  from: { type: 'string' },
  root: { type: 'string', default: '/' },
  'health-timeout': { type: 'string', default: '60' },
  'no-backup': { type: 'boolean', default: false },
  config: { type: 'string' },
  'database-url': { type: 'string' },
} as const;

const COMMON = '[--from URL|DIR] [--root DIR] [--health-timeout SECONDS] [--no-backup] [--config FILE]';

function common(values: {
  'no-backup'?: boolean;
  from?: string;
  root?: string;
  'health-timeout'?: string;
  config?: string;
  'database-url'?: string;
}) {
  const seconds = Number(values['health-timeout']);
  if (!Number.isInteger(seconds) || seconds < 1)
    throw new UsageError('--health-timeout must be a whole number of seconds');
  return {
    backup: values['no-backup'] !== true,
    from: values.from,
    root: values.root ?? '/',
    healthTimeoutSeconds: seconds,
    configPath: values.config,
    databaseUrl: values['database-url'],
  };
}

export function parseUpdateArgs(args: string[]): UpdateArgs {
  const { values, positionals } = parseFlags(args, FLAGS);
  if (positionals.length > 0) throw new UsageError(`Usage: gatehouse update ${COMMON}`);
  return { channel: null, ...common(values) };
}

export function parseUpgradeArgs(args: string[]): UpdateArgs {
  const { values, positionals } = parseFlags(args, { ...FLAGS, channel: { type: 'string' } });
  const channel = values.channel as Channel | undefined;
  if (positionals.length > 0 || !channel)
    throw new UsageError(`Usage: gatehouse upgrade --channel stable|rc ${COMMON}`);
  if (!CHANNELS.includes(channel)) throw new UsageError(`unknown channel "${channel}": use stable or rc`);
  return { channel, ...common(values) };
}

export async function runUpdate(options: UpdateArgs): Promise<number> {
  const from = options.from ?? process.env.GATEHOUSE_RELEASES;
  if (!from) throw new UsageError('no release location: pass --from URL|DIR (or set GATEHOUSE_RELEASES)');
  const { config, file } = loadCommandConfig({ configPath: options.configPath });
  if (!file)
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

export const updateCommand: Command = {
  summary:
    'update: install the newest release of the followed channel (verify, migrate, switch, roll back on failure).',
  run: async (args) => runUpdate(parseUpdateArgs(args)),
};

export const upgradeCommand: Command = {
  summary: 'upgrade --channel stable|rc: move to the newest release of that channel and follow it from now on.',
  run: async (args) => runUpdate(parseUpgradeArgs(args)),
};
