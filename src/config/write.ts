// Writes the configuration file setup produces. An existing file is backed up first (config-files.ts) and only the
// keys setup owns are replaced in its text, so an operator's other settings (delivery, providers, gateway) and
// comments survive a rerun, as do its owner, group and mode.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'smol-toml';
import { keepBackup, replaceFile } from './config-files.ts';
import { parseConfig } from './load.ts';
import { editedToml } from './toml-edit.ts';

export type SetupKeys = Record<string, Record<string, unknown>>;

export interface WriteResult {
  backup: string | null;
}

const isTable = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `base` with `changes` laid over it, table by table: `[providers.google] enabled` keeps its client_id. */
function merged(base: Record<string, unknown>, changes: Record<string, unknown>): Record<string, unknown> {
  const result = { ...base };
  for (const [key, value] of Object.entries(changes))
    result[key] = isTable(value) && isTable(result[key]) ? merged(result[key], value) : value;
  return result;
}

/**
 * The text setup would write: the existing file (if any) with setup's keys replaced, validated exactly as the
 * service validates it at startup. Setup calls this before any side effect, so a refused answer leaves no secret
 * file and no database change behind; a ConfigError names the key.
 */
export function renderSetupConfig(file: string, keys: SetupKeys): string {
  const previous = existsSync(file) ? readFileSync(file, 'utf8') : null;
  const existing = (previous === null ? {} : parse(previous)) as Record<string, Record<string, unknown>>;
  for (const [section, values] of Object.entries(keys)) existing[section] = merged(existing[section] ?? {}, values);
  const text =
    previous === null
      ? `# Gatehouse configuration, written by \`gatehouse setup\`. Reference: docs/configuration.md\n${stringify(existing)}\n`
      : editedToml(previous, existing);
  parseConfig(text, file, { baseDir: path.dirname(file), development: false, env: {} });
  return text;
}

export function writeSetupConfig(file: string, keys: SetupKeys, now: Date = new Date()): WriteResult {
  // Never write a file the service would refuse to start with.
  const text = renderSetupConfig(file, keys);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  const backup = existsSync(file) ? keepBackup(file, file, now) : null;
  replaceFile(file, text);
  return { backup };
}
