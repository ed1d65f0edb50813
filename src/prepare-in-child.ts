// A multi-worker node prepares its database (migrations, the development bootstrap, the secrets check) in a
// short-lived process, so that the supervisor, which lives as long as the node, never loads the database client, the
// migrations and the modules behind the bootstrap (docs/decisions.md, "Smaller processes: TypeBox only to explain, the
// database prepared in a short-lived process"). The process is a cluster worker of the supervisor: it re-runs the
// same command line exactly as the workers do (the release executable included, see src/supervisor.ts), reads the
// same configuration, and is told apart by PREPARE_ENV. It finishes before any worker is forked, so the migrations
// still run before the listener opens.
//
// Its log lines carry the supervisor's pid, as when the supervisor prepared the database itself. A failure is
// reported by the child as the command's own failure (the same line on stderr); the supervisor then exits with the
// child's status and prints nothing more (PreparationFailed). The embedded PostgreSQL of a development instance
// must live as long as the node, so a node without database.url still prepares in the supervisor.
import cluster from 'node:cluster';
import type { DestinationStream } from 'pino';
import { forkThisCommand } from './cluster-fork.ts';
import type { LoadedConfig } from './config/load.ts';
import { PreparationFailed } from './preparation-failed.ts';
import type { EnrollmentLink } from './prepare-database.ts';

export const PREPARE_ENV = 'GATEHOUSE_PREPARE_ONLY';

/** What the child reports back: what the supervisor's start notes need. */
interface Report {
  enrollmentLink: { url: string; expiresAt: string } | null;
  ownerEnrolled: boolean;
}

/** In the supervisor: forks the preparation and waits for it. */
export function prepareInChild(): Promise<{ enrollmentLink: EnrollmentLink | null; ownerEnrolled: boolean }> {
  forkThisCommand();
  return new Promise((resolve, reject) => {
    const child = cluster.fork({ [PREPARE_ENV]: '1' });
    let report: Report | null = null;
    child.on('message', (message: Report) => {
      report = message;
    });
    child.on('exit', (code, signal) => {
      if (code !== 0 || report === null) {
        reject(new PreparationFailed(code, signal));
        return;
      }
      const { enrollmentLink, ownerEnrolled } = report;
      resolve({
        enrollmentLink: enrollmentLink
          ? { url: enrollmentLink.url, expiresAt: new Date(enrollmentLink.expiresAt) }
          : null,
        ownerEnrolled,
      });
    });
  });
}

/** In the child: prepares as the supervisor would have, reports, and returns (the command then exits 0). */
export async function prepareAsChild(loaded: LoadedConfig, logStream?: DestinationStream): Promise<void> {
  const [{ default: pino }, { loggerOptions }, { prepareHere }] = await Promise.all([
    import('pino'),
    import('./http/logger.ts'),
    import('./prepare-here.ts'),
  ]);
  const options = { ...loggerOptions(loaded.config.logging.level), base: { service: 'gatehouse', pid: process.ppid } };
  const log = logStream ? pino(options, logStream) : pino(options);
  const prepared = await prepareHere(loaded, log);
  await prepared.sql.end({ timeout: 5 });
  const report: Report = {
    enrollmentLink: prepared.enrollmentLink
      ? { url: prepared.enrollmentLink.url, expiresAt: prepared.enrollmentLink.expiresAt.toISOString() }
      : null,
    ownerEnrolled: prepared.ownerEnrolled,
  };
  const send = process.send?.bind(process);
  if (!send) throw new Error(`${PREPARE_ENV} is set in a process that has no supervisor`);
  await new Promise<void>((resolve, reject) =>
    send(report, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
}
