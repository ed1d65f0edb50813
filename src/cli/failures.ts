// What a command that cannot run says: one line naming the reason and what to do, and an exit status from
// sysexits.h (64 usage, 65 input the admin API would refuse, 69 something needed is unavailable, 77 permission
// denied, 78 configuration), or 1 for an operation that refuses to go on (src/operations/errors.ts). Anything else
// is a bug: main prints its stack and exits 1.
import { DevelopmentConfigError } from '../config/development-file.ts';
import { ConfigError } from '../config/errors.ts';
import { SecretFileError } from '../crypto/secret-files.ts';
import { EmbeddedDatabaseError } from '../db/embedded.ts';
import { MigrationError } from '../db/migrate.ts';
import { GatehouseError } from '../http/errors.ts';
import { ListenError } from '../http/listen.ts';
import { OperationRefused } from '../operations/errors.ts';
import { AcmeStartFailed } from '../tls/acme-start-failure.ts';
import { WorkerStartFailed } from '../worker-start-failed.ts';
import { UsageError } from './args.ts';
import { NoInstanceError } from './development-instance.ts';

export const EXIT_USAGE = 64;
export const EXIT_UNAVAILABLE = 69;
export const EXIT_DATA = 65;
export const EXIT_CONFIG = 78;

/** Something the command needs is not on this host (systemd, the unit, journalctl); exit 69. */
export class UnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnavailableError';
  }
}

export interface Failure {
  message: string;
  exitCode: number;
}

/** Errors of the socket the database client opens (Node system errors of connect and name lookup). */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/** SQLSTATE classes that mean "this database cannot be used as configured" (PostgreSQL Appendix A). */
function postgresFailure(error: { code?: string; message: string }): string | null {
  const code = error.code ?? '';
  if (code === '42P01')
    return `the database has no Gatehouse tables (${error.message}): run \`gatehouse migrate\` or \`gatehouse setup\` first`;
  if (code.startsWith('28') || code === '3D000' || code.startsWith('08') || code === '57P03' || code === '53300')
    return `the database refused the connection: ${error.message}; check database.url or DATABASE_URL`;
  return null;
}

function databaseFailure(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const e = error as NodeJS.ErrnoException & { name: string };
  if (e.name === 'PostgresError') return postgresFailure(e);
  // postgres (porsager) reports a connect timeout as code CONNECT_TIMEOUT on a plain Error.
  if ((e.code && CONNECT_CODES.has(e.code)) || e.code === 'CONNECT_TIMEOUT')
    return `cannot connect to the database (${e.message}): is PostgreSQL running, and are database.url or DATABASE_URL right?`;
  return null;
}

export function describeFailure(error: unknown): Failure | null {
  if (error instanceof UsageError) return { message: error.message, exitCode: EXIT_USAGE };
  if (
    error instanceof ConfigError ||
    error instanceof SecretFileError ||
    error instanceof DevelopmentConfigError ||
    error instanceof MigrationError ||
    error instanceof NoInstanceError
  )
    return { message: error.message, exitCode: EXIT_CONFIG };
  if (error instanceof OperationRefused) return { message: error.message, exitCode: 1 };
  if (error instanceof WorkerStartFailed) return { message: error.message, exitCode: error.exitCode };
  // tls.mode "acme" with no certificate: 69 when the authority is unreachable, 78 when it refused the order.
  if (error instanceof AcmeStartFailed) return { message: error.message, exitCode: error.exitCode };
  // What the admin API would answer with a 4xx (users, import): its code and description, the input is at fault.
  if (error instanceof GatehouseError && error.status < 500)
    return { message: `${error.code}: ${error.message}`, exitCode: EXIT_DATA };
  if (error instanceof EmbeddedDatabaseError || error instanceof ListenError || error instanceof UnavailableError)
    return { message: error.message, exitCode: EXIT_UNAVAILABLE };
  // A file operation the user may not do (backup into a root-owned directory, update without root).
  const system = error as NodeJS.ErrnoException;
  if ((system.code === 'EACCES' || system.code === 'EPERM') && system.path)
    return { message: `permission denied on ${system.path}: run it as a user who may (sudo)`, exitCode: 77 };
  const database = databaseFailure(error);
  return database ? { message: database, exitCode: EXIT_UNAVAILABLE } : null;
}
