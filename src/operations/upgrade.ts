// `gatehouse update` (the newest release of the channel the installation follows) and `gatehouse upgrade --channel
// C` (the newest of C, which it then follows): download and verify the bundle (release-source.ts), unpack it beside
// the installed ones, refuse a release whose schema is older than the database's, migrate with the NEW release,
// switch `current`, restart the service and wait for /health/ready; when it does not come back healthy, switch
// `current` back and restart the previous release.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { type Channel, compareVersions } from '../../packaging/build/release-layout.ts';
import type { Executor } from '../db/pool.ts';
import { OperationRefused } from './errors.ts';
import {
  bundleMigrations,
  currentVersion,
  followedChannel,
  installationAt,
  recordChannel,
  switchCurrent,
  unpackBundle,
} from './release-install.ts';
import { latestVersion, releaseReader, verifiedBundle } from './release-source.ts';
import { getLocalJson } from './service-probe.ts';

const run = promisify(execFile);
const UNIT = 'gatehouse.service';

export interface UpgradeOptions {
  /** Release location: https:// URL or local directory (as install.sh --from). */
  from: string;
  /** null: the channel the installation follows (`update`). */
  channel: Channel | null;
  /** Filesystem root the installation lives under ("/" on a host; a scratch root in tests). */
  root: string;
  arch: string;
  configFile: string;
  /** --database-url given to the command, passed on to the new release's migrate. */
  databaseUrl?: string | undefined;
  sql: Executor;
  /** The service's readiness URL (GET /health/ready answers {"status":"ok"}). */
  healthUrl: string;
  healthTimeoutMs: number;
  /** Environment of the commands run (systemctl, the new release's migrate). */
  env?: NodeJS.ProcessEnv;
  say?: (line: string) => void;
  /**
   * Takes a backup before the new release migrates (the CLI's: `gatehouse backup` into the data directory) and
   * returns its path: the way back when the new release fails after changing the schema.
   */
  backupFirst?: (() => Promise<string>) | undefined;
}

export type UpgradeResult =
  | { outcome: 'current'; version: string; channel: Channel }
  | { outcome: 'upgraded'; from: string; to: string; channel: Channel; migrated: string };

async function databaseMigrations(sql: Executor): Promise<string[]> {
  const rows = await sql<{ file: string; checksum: string }[]>`
    select lpad(version::text, 4, '0') || '_' || name || '.sql' as file, checksum from schema_migrations
    order by version`.catch((error: { code?: string }) => {
    if (error.code === '42P01') return [];
    throw error;
  });
  return rows.map((r) => `${r.file} ${r.checksum}`);
}

async function assertSchemaNotOlder(sql: Executor, dir: string, version: string, downgrade: boolean) {
  const carried = bundleMigrations(dir);
  if (!carried) {
    if (downgrade)
      throw new OperationRefused(
        `the bundle of ${version} does not list its migrations, so whether its schema is older than the database's cannot be told; nothing was changed`,
      );
    return;
  }
  const unknown = (await databaseMigrations(sql))
    .map((line) => line.split(' ') as [string, string])
    .filter(([file, checksum]) => carried.get(file) !== checksum)
    .map(([file]) => file.replace(/\.sql$/, ''));
  if (unknown.length > 0)
    throw new OperationRefused(
      `${version}'s schema is older than the database's (the database has ${unknown.join(', ')}, which ${version} does not know); nothing was changed`,
    );
}

async function healthy(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const answer = await getLocalJson(url, Math.max(1, Math.min(2000, deadline - Date.now()))).catch(() => null);
    if (answer?.status === 200 && (answer.body as { status?: string } | null)?.status === 'ok') return true;
    // Not listening yet, or not ready: ask again shortly.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** `systemctl restart`, after `reset-failed` so that systemd's start limit never refuses it (src/cli/service.ts). */
async function restartUnit(env: NodeJS.ProcessEnv): Promise<string | null> {
  return (await systemctl(['reset-failed', UNIT], env)) ?? (await systemctl(['restart', UNIT], env));
}

async function systemctl(args: string[], env: NodeJS.ProcessEnv): Promise<string | null> {
  try {
    await run('systemctl', args, { env });
    return null;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    return (e.stderr || e.message).trim();
  }
}

export async function upgrade(options: UpgradeOptions): Promise<UpgradeResult> {
  const say = options.say ?? (() => {});
  const env = options.env ?? process.env;
  const inst = installationAt(options.root);
  const installed = currentVersion(inst);
  const channel = options.channel ?? followedChannel(inst, installed);
  const read = releaseReader(options.from);
  const target = await latestVersion(read, options.from, channel);
  if (target === installed) {
    if (options.channel) recordChannel(inst, channel);
    return { outcome: 'current', version: installed, channel };
  }
  const downgrade = compareVersions(target, installed) < 0;
  const bundle = await verifiedBundle(read, options.from, channel, target, options.arch);
  say(`Verified ${bundle.name} (${bundle.sha256})`);
  const unpacked = await unpackBundle(inst, target, bundle.data);
  try {
    await assertSchemaNotOlder(options.sql, unpacked.dir, target, downgrade);
  } catch (error) {
    unpacked.discard();
    throw error;
  }
  const dir = unpacked.place();
  say(`Installed ${dir} beside ${installed}`);
  const backup = options.backupFirst ? await options.backupFirst() : null;
  if (backup) say(`Backed up the database, configuration and secrets to ${backup}`);

  let migrated: string;
  try {
    const args = ['migrate', '--config', options.configFile];
    if (options.databaseUrl) args.push('--database-url', options.databaseUrl);
    const { stdout } = await run(path.join(dir, 'bin/gatehouse'), args, { env });
    migrated = stdout.trim();
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new OperationRefused(
      `${target} could not migrate the database (${(e.stderr || e.stdout || e.message).trim()}); current still points at ${installed}`,
    );
  }
  say(`Migrated with ${target}: ${migrated}`);

  switchCurrent(inst, target);
  const restartProblem = await restartUnit(env);
  if (!restartProblem && (await healthy(options.healthUrl, options.healthTimeoutMs))) {
    if (options.channel) recordChannel(inst, channel);
    return { outcome: 'upgraded', from: installed, to: target, channel, migrated };
  }
  // Roll back: the previous release serves again, unless the new one's migrations are ones it cannot run on.
  switchCurrent(inst, installed);
  const back = (await restartUnit(env)) === null && (await healthy(options.healthUrl, options.healthTimeoutMs));
  throw new OperationRefused(
    `${target} did not come back healthy (${restartProblem ?? `no {"status":"ok"} from ${options.healthUrl} within ${options.healthTimeoutMs / 1000} s`}); ` +
      `current points at ${installed} again, which ${back ? 'is healthy' : 'is NOT healthy either: check `journalctl -u gatehouse`'}` +
      (migrated.startsWith('Applied')
        ? `. ${target} applied migrations (${migrated}); if ${installed} refuses them, stop it and ` +
          (backup ? `gatehouse restore ${backup}` : 'restore a backup taken before the update')
        : ''),
  );
}
