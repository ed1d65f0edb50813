// `gatehouse config main`: every section but [delivery] and [providers] (which have commands of their own), in
// $EDITOR or through `--set key=value` (which also reaches [providers.ethereum] and [providers.farcaster]); `gatehouse config self-service on|off`. Both go through config-edit.ts:
// validate, back up, write, restart, roll back when the service does not come back.
import { readFileSync } from 'node:fs';
import { parse } from 'smol-toml';
import { WEB3_PROVIDERS } from '../config/schema.ts';
import { type CommandInput, UsageError } from './args.ts';
import { configFileToEdit, editInEditor, type SaveValues, saveConfig, type Table } from './config-edit.ts';
import { type ConfigIo, processIo } from './config-io.ts';

/** Sections `config main` leaves alone: `config delivery` and `config providers` check what they change. */
const OWN_COMMANDS = ['delivery', 'providers'];

export interface MainValues extends SaveValues {
  config?: string;
  set?: string[];
  edit?: boolean;
}

/** A --set value: TOML's own reading of it when it is a TOML value (number, boolean, array), else the text. */
function tomlValue(text: string): unknown {
  try {
    return (parse(`v = ${text}`) as Table).v;
  } catch {
    return text;
  }
}

/** Applies `server.listen=127.0.0.1:8080` to the raw table, creating sections on the way. */
function applySet(raw: Table, assignment: string): void {
  const at = assignment.indexOf('=');
  const key = at > 0 ? assignment.slice(0, at).trim() : '';
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+$/.test(key))
    throw new UsageError(`--set ${assignment}: expected section.key=value, e.g. server.listen=127.0.0.1:8080`);
  const parts = key.split('.');
  // Web3 sign-in has no client secret or discovery document for `config providers` to check: set here.
  const web3 = parts[0] === 'providers' && (WEB3_PROVIDERS as readonly string[]).includes(parts[1] ?? '');
  if (OWN_COMMANDS.includes(parts[0] ?? '') && !web3)
    throw new UsageError(`--set ${key}: use \`gatehouse config ${parts[0]}\`, which checks the new settings`);
  let table = raw;
  for (const part of parts.slice(0, -1)) {
    const next = table[part];
    if (next === undefined) table[part] = {};
    else if (typeof next !== 'object' || Array.isArray(next))
      throw new UsageError(`--set ${key}: ${part} is not a section`);
    table = table[part] as Table;
  }
  table[parts.at(-1) as string] = tomlValue(assignment.slice(at + 1).trim());
}

export async function runConfigMain(values: MainValues, io: ConfigIo): Promise<number> {
  const file = configFileToEdit(values.config);
  const previous = readFileSync(file, 'utf8');
  const raw = parse(previous) as Table;
  const sets = values.set ?? [];
  if (sets.length > 0 && values.edit) throw new UsageError('--set and --edit exclude each other');
  if (sets.length === 0 && !values.edit && !process.stdin.isTTY)
    throw new UsageError('nothing to change: pass --set section.key=value, or --edit to open $EDITOR');
  if (sets.length > 0) for (const assignment of sets) applySet(raw, assignment);
  else {
    const main = Object.fromEntries(Object.entries(raw).filter(([key]) => !OWN_COMMANDS.includes(key)));
    const edited = editInEditor(main, 'gatehouse-main', io);
    for (const key of OWN_COMMANDS)
      if (key in edited) throw new UsageError(`[${key}] is changed with \`gatehouse config ${key}\`, not here`);
    const kept = Object.fromEntries(Object.entries(raw).filter(([key]) => OWN_COMMANDS.includes(key)));
    return saveConfig(file, previous, { ...edited, ...kept }, values, io);
  }
  return saveConfig(file, previous, raw, values, io);
}

export async function runSelfService(state: string, values: MainValues, io: ConfigIo): Promise<number> {
  if (state !== 'on' && state !== 'off') throw new UsageError('self-service takes on or off');
  const file = configFileToEdit(values.config);
  const previous = readFileSync(file, 'utf8');
  const raw = parse(previous) as Table;
  raw.self_service = { ...((raw.self_service as Table | undefined) ?? {}), enabled: state === 'on' };
  return saveConfig(file, previous, raw, values, io);
}

export const configMain = ({ values }: CommandInput<MainValues>) => runConfigMain(values, processIo());
export const configSelfService = ({ values, positionals }: CommandInput<MainValues>) =>
  runSelfService(positionals[0] ?? '', values, processIo());
