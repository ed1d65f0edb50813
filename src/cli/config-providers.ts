// `gatehouse config providers`: add or change one redirect sign-in provider. The client secret (or Apple's .p8 key)
// is read from a file or stdin, never from the command line, and written to its own 0600 file in secrets.dir; the
// TOML gets only the non-secret settings. SPEC.md "Management command": the configuration is backed up first, and
// when the provider's discovery document cannot be fetched (or names another issuer) the previous configuration and
// secret are put back, unless --force.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'smol-toml';
import { keepBackup, replaceFile, restoreBackup } from '../config/config-files.ts';
import { parseConfig } from '../config/load.ts';
import {
  genericProviderState,
  type ProviderId,
  type ProviderState,
  providerSecretFile,
  providerState,
  type RedirectProviderId,
} from '../config/provider-state.ts';
import { REDIRECT_PROVIDERS, WEB3_PROVIDERS } from '../config/schema.ts';
import { editedToml } from '../config/toml-edit.ts';
import { type CommandInput, type OptionValues, UsageError } from './args.ts';
import {
  configFileToEdit,
  editInEditor,
  parseOptionsOf,
  restartOptions,
  restartOrRollBack,
  saveConfig,
} from './config-edit.ts';
import { type ConfigIo, processIo } from './config-io.ts';
import type { PROVIDERS_OPTIONS } from './options.ts';

type Values = OptionValues<typeof PROVIDERS_OPTIONS>;
type Table = Record<string, unknown>;

/** Kinds checked by fetching their discovery document; GitHub and Discord have none. */
const DISCOVERED = new Set(['google', 'gitlab', 'slack', 'microsoft', 'apple']);

function settings(values: Values): Table {
  if (values.enable && values.disable) throw new UsageError('--enable and --disable exclude each other');
  const trust = values['trust-upstream-mfa'];
  if (trust !== undefined && trust !== 'true' && trust !== 'false')
    throw new UsageError('--trust-upstream-mfa must be true or false');
  const entries = {
    enabled: values.enable ? true : values.disable ? false : undefined,
    name: values.name,
    issuer: values.issuer?.replace(/\/$/, ''),
    client_id: values['client-id'],
    team_id: values['team-id'],
    key_id: values['key-id'],
    trust_upstream_mfa: trust === undefined ? undefined : trust === 'true',
  };
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined));
}

const web3FlagsOnly = (id: string) =>
  new UsageError(
    `${id} takes only --enable or --disable here; set its other keys with \`gatehouse config main --set providers.${id}.KEY=VALUE\``,
  );

/** Applies the flags to the raw TOML: `[providers.<id>]` for the nine, an `[[providers.oidc]]` entry otherwise. */
function applyTo(raw: Table, id: string, changes: Table): void {
  const providers = ((raw.providers as Table | undefined) ?? {}) as Table;
  raw.providers = providers;
  if ((WEB3_PROVIDERS as readonly string[]).includes(id)) {
    // A wallet or Farcaster sign-in has no client, secret or issuer: only turning it on or off is a flag here.
    if (Object.keys(changes).some((key) => key !== 'enabled')) throw web3FlagsOnly(id);
    providers[id] = { ...((providers[id] as Table | undefined) ?? {}), ...changes };
    return;
  }
  if ((REDIRECT_PROVIDERS as readonly string[]).includes(id)) {
    if ('name' in changes) throw new UsageError('--name is only for a generic OpenID Connect provider');
    // Said as the flags the person typed; left to the schema it would be "providers.google.team_id: unknown key".
    if (id !== 'apple' && ('team_id' in changes || 'key_id' in changes))
      throw new UsageError('--team-id and --key-id are for apple only');
    providers[id] = { ...((providers[id] as Table | undefined) ?? {}), ...changes };
    return;
  }
  if ('team_id' in changes || 'key_id' in changes) throw new UsageError('--team-id and --key-id are for apple only');
  const list = ((providers.oidc as Table[] | undefined) ?? []).slice();
  const index = list.findIndex((p) => p.id === id);
  if (index === -1) list.push({ id, enabled: true, ...changes });
  else list[index] = { ...list[index], ...changes };
  providers.oidc = list;
}

async function readSecret(values: Values, io: ConfigIo): Promise<string | undefined> {
  if (values['client-secret-file']) return readFileSync(values['client-secret-file'], 'utf8').trim();
  if (values['client-secret-stdin']) return (await io.readStdin()).trim();
  return undefined;
}

/** Fetches the discovery document and compares its issuer (Microsoft's multi-tenant endpoints publish a template). */
async function discoveryProblem(issuer: string): Promise<string | null> {
  try {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
      redirect: 'error',
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return `discovery answered ${response.status}`;
    const found = ((await response.json()) as { issuer?: unknown }).issuer;
    const expected = [issuer, issuer.replace(/\/(common|organizations|consumers)\/v2\.0$/, '/{tenantid}/v2.0')];
    return expected.includes(found as string) ? null : `discovery names issuer ${String(found)}, expected ${issuer}`;
  } catch (error) {
    return `discovery failed: ${(error as Error).message}`;
  }
}

const describeState = (state: ProviderState) =>
  state.state === 'deferred' ? `deferred: ${state.reason}` : state.state === 'off' ? 'off (not enabled)' : 'enabled';

export async function runConfigProviders(values: Values, io: ConfigIo): Promise<number> {
  if (values.edit && !values.provider) return editProviders(values, io);
  const id = values.provider;
  if (!id)
    throw new UsageError('--provider is required (google, github, ..., or the id of an OpenID Connect provider)');
  const file = configFileToEdit(values.config);
  const previous = readFileSync(file, 'utf8');
  const options = parseOptionsOf(file);

  const raw = parse(previous) as Table;
  const web3 = (WEB3_PROVIDERS as readonly string[]).includes(id);
  if (web3 && (values['client-secret-file'] || values['client-secret-stdin'])) throw web3FlagsOnly(id);
  applyTo(raw, id, settings(values));
  const text = editedToml(previous, raw);
  const loaded = parseConfig(text, file, options); // throws ConfigError: nothing written
  const { config } = loaded;
  const secret = await readSecret(values, io);

  const backup = keepBackup(file, file, io.now());
  const secretPath = path.join(config.secrets.dir, providerSecretFile(id));
  const secretBackup = secret !== undefined && existsSync(secretPath) ? keepBackup(file, secretPath, io.now()) : null;
  // A new secret file takes the owner and group of secrets.dir (the service user's), mode 0600.
  if (secret !== undefined) replaceFile(secretPath, `${secret}\n`);
  replaceFile(file, text);
  io.write(`Wrote ${file} (previous configuration saved as ${backup}).\n`);
  if (secret !== undefined) io.write(`Wrote ${secretPath} (mode 0600).\n`);

  const named = web3 || (REDIRECT_PROVIDERS as readonly string[]).includes(id);
  const state = named ? providerState(config, id as ProviderId) : genericProviderState(config, id);
  io.write(`${id}: ${describeState(state)}\n`);
  const issuer = web3
    ? ''
    : named
      ? config.providers[id as RedirectProviderId].issuer
      : (config.providers.oidc.find((p) => p.id === id)?.issuer ?? '');
  const discovered = !web3 && (!named || DISCOVERED.has(id));
  const problem = state.state === 'enabled' && discovered ? await discoveryProblem(issuer) : null;
  const undoSecret = () => {
    if (secretBackup) restoreBackup(secretBackup, secretPath);
    else if (secret !== undefined) rmSync(secretPath);
  };
  if (problem && !values.force) {
    restoreBackup(backup, file);
    undoSecret();
    io.write(`${id}: ${problem}: restored the previous configuration. Use --force to keep it anyway.\n`);
    return 1;
  }
  if (problem) io.write(`${id}: ${problem}; kept the new configuration (--force).\n`);
  else if (!web3) io.write(`Register ${config.server.issuer}/auth/federated/callback at the provider.\n`);
  return restartOrRollBack(
    file,
    backup,
    loaded,
    io,
    restartOptions(values, 'Restart the service to use the new provider settings'),
    undoSecret,
  );
}

/** `config providers --edit` without --provider: the whole [providers] section in $EDITOR. */
async function editProviders(values: Values, io: ConfigIo): Promise<number> {
  const file = configFileToEdit(values.config);
  const previous = readFileSync(file, 'utf8');
  const raw = parse(previous) as Table;
  raw.providers = editInEditor((raw.providers as Table | undefined) ?? {}, 'providers', io);
  return saveConfig(file, previous, raw, values, io);
}

/** `gatehouse config providers`. */
export const configProviders = ({ values }: CommandInput<Values>) => runConfigProviders(values, processIo());
