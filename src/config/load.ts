import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseToml, TomlError } from 'smol-toml';
import { fillDefaults } from '../schema/defaults.ts';
import { fits, typeboxSchema } from '../schema/fits.ts';
import { DEVELOPMENT_CONFIG, developmentConfigPath, isDevelopmentConfig } from './development-file.ts';
import { ConfigError, type ConfigProblem } from './errors.ts';
import { developmentIssuer } from './issuer-listener.ts';
import { type Config, ConfigSchema, LdapDirectorySchema, SamlConnectionSchema } from './schema.ts';
import { problemsFromSchemaErrors } from './schema-errors.ts';
import { checkSemantics, type Deferred } from './validate.ts';

export const DEFAULT_CONFIG_PATH = '/etc/gatehouse/gatehouse.toml';

/** Environment variables that override one key each; documented in README.md. */
export const ENV_OVERRIDES = {
  GATEHOUSE_ISSUER: ['server', 'issuer'],
  GATEHOUSE_LISTEN: ['server', 'listen'],
  DATABASE_URL: ['database', 'url'],
} as const;

export interface LoadedConfig {
  config: Config;
  /** The file read, or null for a development instance whose file the first start has not written yet. */
  file: string | null;
  /** The development instance (./.gatehouse/gatehouse.toml, or its defaults before the first start). */
  development: boolean;
  deferred: Deferred[];
}

export interface LoadOptions {
  /** `--config FILE`; wins over GATEHOUSE_CONFIG and the default path. */
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Which file to read: --config, then GATEHOUSE_CONFIG, then the default path if it exists, then the development
 * instance's ./.gatehouse/gatehouse.toml if it exists; null means a development instance not started yet.
 */
export function resolveConfigPath(options: LoadOptions): string | null {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.configPath ?? env.GATEHOUSE_CONFIG;
  if (explicit) return path.resolve(cwd, explicit);
  if (existsSync(DEFAULT_CONFIG_PATH)) return DEFAULT_CONFIG_PATH;
  const development = developmentConfigPath(cwd);
  return existsSync(development) ? development : null;
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const file = resolveConfigPath(options);
  // Before the first start: the text that start will write, read as if it were there.
  if (file === null)
    return {
      ...parseConfig(DEVELOPMENT_CONFIG, '(development defaults)', {
        env: options.env,
        baseDir: path.dirname(developmentConfigPath(cwd)),
        development: true,
      }),
      file: null,
    };
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new ConfigError(file, [{ key: '(file)', problem: reason }]);
  }
  const development = isDevelopmentConfig(file, cwd);
  return parseConfig(source, file, { env: options.env, baseDir: path.dirname(file), development });
}

interface ParseOptions {
  env?: NodeJS.ProcessEnv | undefined;
  baseDir: string;
  development: boolean;
}

export function parseConfig(source: string, file: string, options: ParseOptions): LoadedConfig {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(source) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? `line ${error.line}, column ${error.column}` : '(file)';
    const message = (error as Error).message.split('\n')[0] ?? 'cannot parse';
    throw new ConfigError(file, [{ key: where, problem: `not valid TOML: ${message}` }]);
  }

  // The development instance's issuer follows its listener unless its file or GATEHOUSE_ISSUER names one.
  const fileIssuer = (raw.server as Record<string, unknown> | undefined)?.issuer !== undefined;
  const fromEnv = applyEnvOverrides(raw, options.env ?? process.env);
  const rename = (problems: ConfigProblem[]) => problems.map((p) => ({ ...p, key: fromEnv.get(p.key) ?? p.key }));

  const withDefaults = fillDefaults(ConfigSchema, raw) as Record<string, unknown>;
  // TypeBox fills defaults through properties and array items, not through a record's values (`[ldap.<id>]`).
  const ldap = withDefaults.ldap;
  if (typeof ldap === 'object' && ldap !== null)
    for (const [id, entry] of Object.entries(ldap))
      (ldap as Record<string, unknown>)[id] = fillDefaults(LdapDirectorySchema, entry);
  const saml = withDefaults.saml;
  if (typeof saml === 'object' && saml !== null)
    for (const [id, entry] of Object.entries(saml))
      (saml as Record<string, unknown>)[id] = fillDefaults(SamlConnectionSchema, entry);
  // TypeBox's Errors (and its 235 module files) only for a configuration not confirmed valid (src/schema/fits.ts).
  const schemaProblems =
    fits(ConfigSchema, withDefaults) === true
      ? []
      : problemsFromSchemaErrors(typeboxSchema().Errors(ConfigSchema, withDefaults)[1]);
  if (schemaProblems.length > 0) throw new ConfigError(file, rename(schemaProblems));

  const config = withDefaults as Config;
  if (options.development && !fileIssuer && !fromEnv.has('server.issuer'))
    config.server.issuer = developmentIssuer(config.server.listen) ?? config.server.issuer;
  const { problems, deferred } = checkSemantics(config);
  if (problems.length > 0) throw new ConfigError(file, rename(problems));

  config.data.dir = path.resolve(options.baseDir, config.data.dir);
  config.secrets.dir = path.resolve(options.baseDir, config.secrets.dir);
  const smtp = config.delivery.smtp;
  if (smtp.password_file !== '') smtp.password_file = path.resolve(config.secrets.dir, smtp.password_file);
  if (config.branding.logo_file !== '')
    config.branding.logo_file = path.resolve(options.baseDir, config.branding.logo_file);
  for (const directory of Object.values(config.ldap))
    if (directory.ca_file !== '') directory.ca_file = path.resolve(options.baseDir, directory.ca_file);
  for (const connection of Object.values(config.saml)) {
    connection.idp_certificate_files = connection.idp_certificate_files.map((f) => path.resolve(options.baseDir, f));
    if (connection.idp_metadata_file !== '')
      connection.idp_metadata_file = path.resolve(options.baseDir, connection.idp_metadata_file);
  }
  return { config, file, development: options.development, deferred };
}

/** Writes env overrides into the raw table; returns dotted key → env var name so errors name the variable. */
function applyEnvOverrides(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): Map<string, string> {
  const applied = new Map<string, string>();
  for (const [name, [sectionName, key]] of Object.entries(ENV_OVERRIDES)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const existing = raw[sectionName];
    const section = (typeof existing === 'object' && existing !== null ? existing : {}) as Record<string, unknown>;
    section[key] = value;
    raw[sectionName] = section;
    applied.set(`${sectionName}.${key}`, name);
  }
  return applied;
}
