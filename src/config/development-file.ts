// The development instance's configuration file, ./.gatehouse/gatehouse.toml (git-ignored with the rest of
// .gatehouse/). The first `npm start` in a directory writes it with the values the instance runs on; from then on it
// is an ordinary configuration file, read and checked by the same schema and rules as a production one, edited by
// hand or with `gatehouse config main|providers|delivery` run in that directory, and read again on restart. So the
// gateway, providers, SAML or LDAP can be tried on the instance that already holds the owner and the clients.
//
// Before the first start (a command run in a directory where no file exists yet) the same text is parsed without
// writing it, so the instance's defaults exist once, here, in the form a person edits.
import { closeSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { writeProblem } from '../crypto/secret-files.ts';

/** The directory of the development instance's state, relative to where `npm start` runs. */
export const DEVELOPMENT_DIR = '.gatehouse';

export const developmentConfigPath = (cwd: string): string => path.resolve(cwd, DEVELOPMENT_DIR, 'gatehouse.toml');

/** Where the development instance writes its JSON log (src/cli/development-log.ts) and `gatehouse logs` reads it. */
export const developmentLogPath = (cwd: string): string => path.resolve(cwd, DEVELOPMENT_DIR, 'log');

/** Whether `file` is the development instance's file of `cwd`, which gets the development start (bootstrap). */
export const isDevelopmentConfig = (file: string, cwd: string): boolean => file === developmentConfigPath(cwd);

/**
 * What the first start writes. Paths are relative to the file's directory, as in any configuration file, so the
 * checkout can move. The issuer is left unset: the development issuer follows the listener's port (load.ts), so
 * `GATEHOUSE_LISTEN=127.0.0.1:8090 npm start`, or a new server.listen here, moves both.
 */
export const DEVELOPMENT_CONFIG = `# Configuration of the development instance, written by its first start (\`npm start\`) in this directory.
# The same keys and checks as a production file (docs/configuration.md). Edit it here or with
# \`npm run gatehouse -- config main --set section.key=value\` (or \`config main --edit\`, \`config providers\`),
# then restart \`npm start\`. Relative paths resolve against this directory. GATEHOUSE_LISTEN, GATEHOUSE_ISSUER and
# DATABASE_URL still override server.listen, server.issuer and database.url for one start.

[server]
listen = "127.0.0.1:8080"
# issuer: unset, it is http://localhost:<the listener's port>; set it to pin another loopback address.
# One process: a development machine gains nothing from several, and the log stays one file.
workers = 1

[database]
# Empty: the embedded PostgreSQL under this directory (evaluation only). A URL here may hold a password.
url = ""

[data]
dir = "."

[secrets]
dir = "secrets"

[organization]
id = "dev"
name = "Development"
owner_subject = "owner@localhost"

[self_service]
enabled = true

[delivery]
# Kept, not sent: each message is printed on the terminal and listed on the console's Mailbox page (loopback only).
kind = "dev_mailbox"
`;

/** The first start cannot write the file (a read-only file system, a full disk): one line, exit 78. */
export class DevelopmentConfigError extends Error {
  constructor(file: string, cause: unknown) {
    super(`Cannot write the development configuration ${file}: ${writeProblem(cause)}`);
    this.name = 'DevelopmentConfigError';
  }
}

/**
 * Writes the development configuration file for `cwd` unless it exists (0600 in a 0700 directory, like the secrets
 * beside it). Returns the file when it was created now, null when it was there already.
 */
export function createDevelopmentConfig(cwd: string): string | null {
  const file = developmentConfigPath(cwd);
  if (existsSync(file)) return null;
  try {
    // Not recursive: the directory `npm start` runs in exists, and a recursive mkdir would report a read-only file
    // system as ENOENT.
    mkdirSync(path.dirname(file), { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new DevelopmentConfigError(file, error);
  }
  let fd: number;
  try {
    // 'wx': of two starts racing in one directory, one writes the file and the other reads it.
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw new DevelopmentConfigError(file, error);
  }
  try {
    writeSync(fd, DEVELOPMENT_CONFIG);
  } catch (error) {
    // A full disk: no half file that the next start would read as the configuration.
    rmSync(file, { force: true });
    throw new DevelopmentConfigError(file, error);
  } finally {
    closeSync(fd);
  }
  return file;
}
