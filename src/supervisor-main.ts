// The handed-over supervisor (src/supervisor-handover.ts): main.ts runs it instead of the command line when
// SUPERVISOR_ENV is set. It loads the supervisor, its logger and the start notes, and none of the command line, the
// configuration or the application (test/startup-imports.test.ts).
import { startNotes } from './cli/start-notes.ts';
import { untilSignal } from './cli/until-signal.ts';
import type { RunningServer } from './server.ts';
import { superviseWorkers, supervisorLog } from './supervisor.ts';
import { SUPERVISOR_ENV, takeHandover } from './supervisor-handover.ts';
import { WorkerStartFailed } from './worker-start-failed.ts';

/** Supervises the workers until SIGTERM or SIGINT: the exit status of `gatehouse serve`. */
export async function runHandedOver(): Promise<number> {
  const handover = takeHandover();
  if (!handover) {
    process.stderr.write(
      `gatehouse serve: ${SUPERVISOR_ENV} is not set: this module runs only as a handed-over supervisor\n`,
    );
    return 1;
  }
  const log = supervisorLog(handover.settings.logLevel);
  let server: RunningServer;
  try {
    const prepared = { url: handover.databaseUrl, stopEmbedded: null, enrollmentLink: null, ownerEnrolled: false };
    server = await superviseWorkers(handover.settings, prepared, log);
  } catch (error) {
    // As src/cli/program.ts reports a failed start of a supervisor that was not handed over.
    process.stderr.write(`gatehouse serve: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof WorkerStartFailed ? error.exitCode : 1;
  }
  // In place before the notes, as in serve.ts: a signal sent as soon as they are read must find them.
  const stopped = untilSignal(server);
  process.on('SIGHUP', () => void server.tls.reload('SIGHUP'));
  process.stderr.write(startNotes(server.url, handover.issuer, handover.notes));
  await stopped;
  return 0;
}
