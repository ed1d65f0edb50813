// A multi-worker node whose supervisor stays in the process that read the configuration: the development instance,
// whose embedded PostgreSQL, log file and instance record live as long as the node, or a Node without
// process.execve. It prepares the database (here, or in a short-lived process when the database is a server of its
// own) and then supervises as the handed-over supervisor does (src/supervisor.ts). Kept apart from supervisor.ts so
// that the handed-over supervisor loads neither pino nor the preparation.
import { type DestinationStream, type Logger, pino } from 'pino';
import type { LoadedConfig } from './config/load.ts';
import type { Config } from './config/schema.ts';
import { loggerOptions } from './http/logger.ts';
import { prepareInChild } from './prepare-in-child.ts';
import type { RunningServer } from './server.ts';
import { type PreparedDatabase, superviseWorkers, supervisorSettings } from './supervisor.ts';

/**
 * The secrets check, migrations and development bootstrap, once per node: in a short-lived process when the database
 * is a server of its own (src/prepare-in-child.ts), here when this process must own an embedded PostgreSQL.
 */
async function prepare(loaded: LoadedConfig, log: Pick<Logger, 'info' | 'warn'>): Promise<PreparedDatabase> {
  if (loaded.config.database.url !== '') {
    const reported = await prepareInChild();
    return { url: loaded.config.database.url, stopEmbedded: null, ...reported };
  }
  const prepared = await (await import('./prepare-here.ts')).prepareHere(loaded, log);
  await prepared.sql.end({ timeout: 5 });
  return prepared;
}

/** pino, for the supervisor that also prepares the database (its migrations log through it). */
const supervisorLog = (level: Config['logging']['level'], logStream?: DestinationStream): Logger =>
  logStream ? pino(loggerOptions(level), logStream) : pino(loggerOptions(level));

/**
 * Prepares the database here and supervises the workers in this same process: the development instance, whose
 * embedded PostgreSQL and log file live as long as the node. A node with a database server of its own hands over to a
 * supervisor that loads almost nothing instead (src/supervisor-handover.ts). `logStream`: where the supervisor's own
 * lines go (the development instance's log file); stdout by default.
 */
export async function startSupervisor(
  loaded: LoadedConfig,
  count: number,
  logStream?: DestinationStream,
): Promise<RunningServer> {
  const log = supervisorLog(loaded.config.logging.level, logStream);
  const prepared = await prepare(loaded, log);
  return superviseWorkers(supervisorSettings(loaded.config, count), prepared, log);
}
