// The handed-over supervisor (src/supervisor-handover.ts): main.ts runs it instead of the command line when
// SUPERVISOR_ENV is set. It loads the supervisor, its line writer and the start notes, and none of the command line,
// the configuration, the application or pino (test/startup-imports.test.ts).
import { startNotes } from './cli/start-notes.ts';
import type { RunningServer } from './server.ts';
import { superviseWorkers } from './supervisor.ts';
import { SUPERVISOR_ENV, takeHandover } from './supervisor-handover.ts';
import { supervisorLineLog } from './supervisor-log.ts';
import { WorkerStartFailed } from './worker-start-failed.ts';

/** Supervises the workers until SIGTERM or SIGINT: the exit status of `gatehouse serve`. */
export async function runHandedOver(): Promise<number> {
  const handover = takeHandover();
  if (!handover) {
    process.stderr.write(
      `gatehouse serve: ${SUPERVISOR_ENV} holds no handover: it is set by \`gatehouse serve\` only\n`,
    );
    return 1;
  }
  // Signals are answered from the first line, not once the workers listen: a SIGTERM or SIGINT while they start
  // stops the node as soon as they have (their default action would end this process and leave the workers to exit
  // with it), and a SIGHUP, whose default action is to end the process too, has nothing to reload yet.
  let server: RunningServer | null = null;
  let stopAsked = false;
  let askStop = () => {};
  const stopSignal = new Promise<void>((resolve) => {
    askStop = resolve;
  });
  const stop = () => {
    stopAsked = true;
    askStop();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', () => void server?.tls.reload('SIGHUP'));

  const log = supervisorLineLog(handover.settings.logLevel);
  try {
    const prepared = { url: handover.databaseUrl, stopEmbedded: null, enrollmentLink: null, ownerEnrolled: false };
    server = await superviseWorkers(handover.settings, prepared, log);
  } catch (error) {
    // As src/cli/program.ts reports a failed start: the worker's reason is above; anything else is a bug.
    if (error instanceof WorkerStartFailed) {
      process.stderr.write(`gatehouse serve: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(
      `gatehouse serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
  if (!stopAsked) process.stderr.write(startNotes(server.url, handover.issuer, handover.notes));
  await stopSignal;
  // A second signal changes nothing: stop() is the same graceful stop each time.
  await server.stop();
  return 0;
}
