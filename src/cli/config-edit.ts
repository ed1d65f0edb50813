// What every `gatehouse config <section>` does once it has the new file: validate it before saving, keep a
// timestamped backup (config-files.ts), write it with its comments, owner, group and mode kept, restart the service when systemd runs it, and when the service does not come back
// healthy put the previous file back and restart again. Each step is said as it happens (SPEC.md "Management
// command": the configuration is backed up and the previous file restored when the service cannot recover).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { keepBackup, replaceFile, restoreBackup } from '../config/config-files.ts';
import { isDevelopmentConfig } from '../config/development-file.ts';
import { ConfigError } from '../config/errors.ts';
import { type LoadedConfig, parseConfig, resolveConfigPath } from '../config/load.ts';
import { editedToml } from '../config/toml-edit.ts';
import { UsageError } from './args.ts';
import type { ConfigIo } from './config-io.ts';
import { healthUrl, serviceState, startUnit, UNIT, waitUntilHealthy } from './service.ts';
import { timeoutMs } from './service-control.ts';

export type Table = Record<string, unknown>;

/**
 * The file a config command edits: --config, GATEHOUSE_CONFIG, the installed one, or the development instance's
 * ./.gatehouse/gatehouse.toml (written by its first start).
 */
export function configFileToEdit(configPath: string | undefined): string {
  const file = resolveConfigPath({ configPath });
  if (file === null)
    throw new UsageError(
      'No configuration file: run `gatehouse setup` first, pass --config FILE, or start the development instance in this directory once (`npm start` writes .gatehouse/gatehouse.toml)',
    );
  return file;
}

/** How the service reads `file`: the development instance's own file with its development start. */
export const parseOptionsOf = (file: string) => ({
  baseDir: path.dirname(file),
  development: isDevelopmentConfig(file, process.cwd()),
  env: {},
});

/** The new file validated as the service would load it; throws ConfigError (nothing is written). */
export function validateConfig(file: string, text: string): LoadedConfig {
  return parseConfig(text, file, parseOptionsOf(file));
}

export interface RestartOptions {
  /** --no-restart: only say that a restart is needed. */
  skip: boolean;
  timeoutMs: number;
  /** What to say when nothing was restarted. */
  pending: string;
}

/**
 * Restarts the service on the new file when systemd runs it and waits for /health/ready. Not healthy in time: puts
 * `backup` back, runs `undo` (secret files written with the change), restarts again and reports 1.
 */
export async function restartOrRollBack(
  file: string,
  backup: string,
  loaded: LoadedConfig,
  io: ConfigIo,
  options: RestartOptions,
  undo: () => void = () => {},
): Promise<number> {
  // The development instance runs in someone's terminal, not under systemd: it is restarted there.
  if (loaded.development) {
    io.write(
      `${options.pending}: stop the development instance (Ctrl-C where \`npm start\` runs) and start it again\n`,
    );
    return 0;
  }
  const state = options.skip ? null : await serviceState();
  if (state?.load !== 'loaded' || state.active !== 'active') {
    const why = options.skip
      ? '--no-restart'
      : state?.load !== 'loaded'
        ? `${UNIT} is not installed here`
        : `${UNIT} is ${state.active}, not restarted`;
    io.write(`${options.pending} (${why})\n`);
    return 0;
  }
  const restart = async (config: LoadedConfig['config'], wait: number) => {
    const run = await startUnit('restart');
    if (run && run.code !== 0)
      return { ready: false, detail: `systemctl restart failed: ${(run.stderr || run.stdout).trim()}` };
    return waitUntilHealthy(healthUrl(config), wait);
  };
  io.write(`Restarting ${UNIT}...\n`);
  const health = await restart(loaded.config, options.timeoutMs);
  if (health.ready) {
    io.write(`Restarted ${UNIT}: ready at ${healthUrl(loaded.config)}\n`);
    return 0;
  }
  io.write(`${UNIT} did not come back healthy within ${options.timeoutMs / 1000} s (${health.detail}).\n`);
  restoreBackup(backup, file);
  undo();
  io.write(`Restored the previous configuration from ${backup}; restarting ${UNIT} again...\n`);
  const previous = validateConfig(file, readFileSync(file, 'utf8'));
  // The previous file ran before: it gets at least the default minute, however short --timeout was.
  const again = await restart(previous.config, Math.max(options.timeoutMs, 60_000));
  io.write(
    again.ready
      ? `Restarted ${UNIT} on the previous configuration: ready.\n`
      : `${UNIT} is still not healthy on the previous configuration (${again.detail}): see \`gatehouse logs\`.\n`,
  );
  return 1;
}

/**
 * Opens `table` as TOML in $VISUAL or $EDITOR (vi when neither is set) and returns what was saved, parsed. A file
 * that no longer parses is offered again on a terminal, else refused.
 */
export function editInEditor(table: Table, name: string, io: Pick<ConfigIo, 'write'>): Table {
  const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-edit-'));
  const file = path.join(dir, `${name}.toml`);
  writeFileSync(file, `${stringify(table)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 1; ; attempt += 1) {
      // Through the shell, as git and crontab run it: EDITOR may carry arguments ("code --wait").
      const run = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'editor', file], { stdio: 'inherit' });
      if (run.status !== 0) throw new UsageError(`the editor (${editor}) exited with ${run.status}: nothing changed`);
      try {
        return parse(readFileSync(file, 'utf8')) as Table;
      } catch (error) {
        if (!process.stdin.isTTY || attempt === 3)
          throw new ConfigError(file, [{ key: '(file)', problem: (error as Error).message }]);
        io.write(`That is not valid TOML (${(error as Error).message}); opening it again.\n`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The options every config command shares for the restart. */
export interface SaveValues {
  'no-restart'?: boolean;
  timeout?: string;
}

export const restartOptions = (values: SaveValues, pending: string): RestartOptions => ({
  skip: Boolean(values['no-restart']),
  timeoutMs: timeoutMs(values.timeout),
  pending,
});

/** Validates `raw`, and when it differs from the file: backs up, writes, restarts (or rolls back). */
export async function saveConfig(
  file: string,
  previous: string,
  raw: Table,
  values: SaveValues,
  io: ConfigIo,
): Promise<number> {
  const text = editedToml(previous, raw);
  const loaded = validateConfig(file, text); // throws ConfigError: nothing written
  if (stringify(parse(previous)) === stringify(raw)) {
    io.write(`No change to ${file}.\n`);
    return 0;
  }
  const backup = keepBackup(file, file, io.now());
  replaceFile(file, text);
  io.write(`Wrote ${file} (previous configuration saved as ${backup}).\n`);
  return restartOrRollBack(
    file,
    backup,
    loaded,
    io,
    restartOptions(values, 'Restart the service to use the new settings'),
  );
}
