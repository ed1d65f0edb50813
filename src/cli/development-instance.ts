// The running development instance's record of itself, in its data directory (./.gatehouse/instance.json, 0600 like
// the postgres password beside it): its pid, issuer, listener and DATABASE_URL. `GATEHOUSE_LISTEN=127.0.0.1:8090 npm start` moves the development issuer with the listener,
// so a command run later in another shell, without that variable, reads the record to print links that open and
// to check the instance it is next to. The embedded database is found from PostgreSQL's own lock file instead
// (src/db/embedded.ts). A record whose process is gone (a crash) is ignored.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_CONFIG_PATH, type LoadedConfig, type LoadOptions, loadConfig } from '../config/load.ts';

const FILE = 'instance.json';

export interface DevelopmentInstance {
  pid: number;
  issuer: string;
  /** host:port actually bound (the system's choice when the configured port was 0). */
  listen: string;
  /** DATABASE_URL as the instance got it; '' for the embedded server (found from its lock file instead). */
  databaseUrl: string;
}

/** Writes the record (0600); the returned function removes it when the instance stops. */
export function recordDevelopmentInstance(dataDir: string, instance: DevelopmentInstance): () => void {
  const file = path.join(dataDir, FILE);
  writeFileSync(file, `${JSON.stringify(instance)}\n`, { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function runningDevelopmentInstance(dataDir: string): DevelopmentInstance | null {
  let record: Partial<DevelopmentInstance>;
  try {
    record = JSON.parse(readFileSync(path.join(dataDir, FILE), 'utf8'));
  } catch {
    return null;
  }
  const { pid, issuer, listen, databaseUrl } = record;
  if (typeof pid !== 'number' || typeof issuer !== 'string' || typeof listen !== 'string' || !alive(pid)) return null;
  return { pid, issuer, listen, databaseUrl: typeof databaseUrl === 'string' ? databaseUrl : '' };
}

export interface CommandConfig extends LoadedConfig {
  /** The development instance running on this data directory, when there is no config file and one runs. */
  instance: DevelopmentInstance | null;
}

/** No config file, and no development instance ever ran here: there is nothing for the command to work on. */
export class NoInstanceError extends Error {
  constructor(dataDir: string) {
    super(
      `no configuration file (--config FILE, GATEHOUSE_CONFIG or ${DEFAULT_CONFIG_PATH}) and no development instance in ${dataDir}: start one in this directory with \`npm start\`, or pass --config FILE`,
    );
    this.name = 'NoInstanceError';
  }
}

/**
 * The configuration a one-shot command works with. `needsInstance`: without a config file, refuse (one line) when no
 * development instance has ever run here, instead of creating an empty one (its secrets and database). Without a
 * config file and with an instance running, its issuer, listener and database URL apply unless this command's
 * environment sets them. Without a config file, a running development instance's issuer
 * and listener replace the defaults, unless GATEHOUSE_ISSUER or GATEHOUSE_LISTEN is set for this command.
 */
export function loadCommandConfig(options: LoadOptions = {}, use: { needsInstance?: boolean } = {}): CommandConfig {
  const loaded = loadConfig(options);
  if (use.needsInstance && loaded.development && !existsSync(loaded.config.secrets.dir))
    throw new NoInstanceError(loaded.config.data.dir);
  const instance = loaded.development ? runningDevelopmentInstance(loaded.config.data.dir) : null;
  const env = options.env ?? process.env;
  if (instance && !env.GATEHOUSE_ISSUER && !env.GATEHOUSE_LISTEN) {
    loaded.config.server.issuer = instance.issuer;
    loaded.config.server.listen = instance.listen;
  }
  // An instance started with DATABASE_URL is reached there, not through an embedded server of the command's own.
  if (instance && !env.DATABASE_URL && instance.databaseUrl) loaded.config.database.url = instance.databaseUrl;
  return { ...loaded, instance };
}
