import cluster from 'node:cluster';
import path from 'node:path';
import { createDevelopmentConfig, DEVELOPMENT_DIR, developmentLogPath } from '../config/development-file.ts';
import { parseListen } from '../config/listen-address.ts';
import { type LoadedConfig, loadConfig } from '../config/load.ts';
import { readSmtpPassword } from '../delivery/smtp-relay.ts';
import { deliveryStatus } from '../delivery/status.ts';
import { assertCanListen, listenFailure } from '../http/listen.ts';
import type { EnrollmentLink } from '../prepare-database.ts';
import { PREPARE_ENV, prepareAsChild, prepareInChild } from '../prepare-in-child.ts';
import type { RunningServer } from '../server.ts';
import { supervisorSettings, workerCount } from '../supervisor.ts';
import { canHandOver, handOver } from '../supervisor-handover.ts';
import { startSupervisor } from '../supervisor-start.ts';
import type { CommandInput } from './args.ts';
import { recordDevelopmentInstance } from './development-instance.ts';
import { developmentLog, logToTerminal } from './development-log.ts';
import { enrollmentNotice, OWNER_ENROLLED_NOTICE } from './enrollment-notice.ts';
import { startNotes } from './start-notes.ts';

/** `gatehouse serve`: runs until SIGTERM or SIGINT. */
export async function serve({ values }: CommandInput<{ config?: string }>): Promise<number> {
  // SIGHUP reloads the TLS certificate (mode files) or checks ACME renewal once the node listens. It is answered from
  // here on, never by Node's default, which ends the process: a reload sent while the node starts (a certificate
  // hook, `systemctl reload`) would end it, and systemd counts an end by SIGHUP as clean and does not restart it.
  // Before the node listens there is nothing to reload.
  let reload = () => {};
  process.on('SIGHUP', () => reload());
  const first = loadConfig({ configPath: values.config });
  // A GATEHOUSE_LOG it does not understand is refused before anything starts.
  logToTerminal(process.env);
  // The application (routes and their libraries) loads only in a process that serves requests: not in a supervisor.
  const application = () => import('../server.ts');
  // A worker of a supervisor (server.workers > 1): the supervisor checked the port and prints the notes.
  if (cluster.isWorker) {
    const logFile = developmentLog(first);
    // The supervisor's short-lived database preparation (src/prepare-in-child.ts), not a worker.
    if (process.env[PREPARE_ENV]) {
      await prepareAsChild(first, logFile ?? undefined);
      return 0;
    }
    const worker = await (await application()).startServer(first, {
      worker: true,
      ...(logFile ? { logStream: logFile } : {}),
    });
    reload = () => void worker.tls.reload('SIGHUP');
    await untilSignal(worker);
    return 0;
  }
  const listener = parseListen(first.config.server.listen) ?? { host: '127.0.0.1', port: 8080 };
  // Before the embedded database and migrations: a port in use is one line at once, not a stack trace later.
  await assertCanListen(listener.host, listener.port);
  // No configuration file anywhere: the development instance's first start writes the one it runs on
  // (development-file.ts), and reads it back as every later start will.
  const created = first.development && first.file === null ? createDevelopmentConfig(process.cwd()) : null;
  const loaded = created ? loadConfig({ configPath: values.config }) : first;
  const { config } = loaded;
  const logFile = developmentLog(loaded);
  const logStream = logFile ? { logStream: logFile } : {};
  // The relay password file is checked like the generated secret files: refused before anything starts.
  if (config.delivery.kind === 'smtp' && deliveryStatus(config).state === 'ready')
    readSmtpPassword(config.delivery.smtp);
  // Mode acme runs one challenge listener and one renewal schedule: one process (docs/scaling.md).
  const workers = config.tls.mode === 'acme' ? 1 : workerCount(config.server.workers);
  // Several workers on a database server of its own: prepare it, then become a supervisor that loads almost nothing.
  // The development instance keeps the supervisor of this process: its embedded PostgreSQL, log file and instance
  // record live as long as the node.
  if (workers > 1 && !loaded.development && config.database.url !== '' && canHandOver()) {
    const prepared = await prepareInChild();
    handOver({
      settings: supervisorSettings(config, workers),
      databaseUrl: config.database.url,
      issuer: config.server.issuer,
      notes: laterNotes(loaded, workers, prepared, { created: false, logged: false }),
    });
  }
  const server = await (workers === 1
    ? (await application()).startServer(loaded, logStream)
    : startSupervisor(loaded, workers, logFile ?? undefined)
  ).catch(async (error: NodeJS.ErrnoException) => {
    throw (error.syscall === 'listen' && (await listenFailure(error.code, listener.host, listener.port))) || error;
  });
  const bound = new URL(server.url).host;
  const forgetInstance = loaded.development
    ? recordDevelopmentInstance(config.data.dir, {
        pid: process.pid,
        issuer: config.server.issuer,
        listen: bound,
        databaseUrl: config.database.url,
      })
    : () => {};
  // The handlers are in place before "listening" is announced: a signal sent as soon as that line is read would
  // otherwise find none and kill the process. They stay: a second signal must not kill the process halfway
  // through its graceful stop (Ctrl-C in a terminal reaches this process and also the launcher or npm above it,
  // which pass it on once more).
  const stopped = untilSignal(server);
  reload = () => void server.tls.reload('SIGHUP');
  process.stderr.write(
    startNotes(
      server.url,
      config.server.issuer,
      laterNotes(loaded, workers, server, { created: created !== null, logged: logFile !== null }),
    ),
  );

  await stopped;
  forgetInstance();
  return 0;
}

/** The start notes after where the node listens (src/cli/start-notes.ts). */
function laterNotes(
  loaded: LoadedConfig,
  workers: number,
  prepared: { enrollmentLink: EnrollmentLink | null; ownerEnrolled: boolean },
  development: { created: boolean; logged: boolean },
): string[] {
  const notes: string[] = [];
  if (workers > 1) notes.push(`  workers: ${workers} processes (server.workers)`);
  if (loaded.development) notes.push(...developmentNotes(loaded.file, development.created, development.logged));
  if (prepared.enrollmentLink) notes.push(enrollmentNotice(prepared.enrollmentLink));
  if (prepared.ownerEnrolled) notes.push(`  ${OWNER_ENROLLED_NOTICE}`);
  if (loaded.config.database.url === '')
    notes.push('  WARNING: the embedded PostgreSQL is for evaluation only; set DATABASE_URL for real use.');
  for (const item of loaded.deferred) notes.push(`  deferred: ${item.key} (${item.reason})`);
  return notes;
}

/** Where the development instance keeps its configuration and log, as paths relative to where it was started. */
function developmentNotes(file: string | null, created: boolean, logged: boolean): string[] {
  const here = (target: string) => path.relative(process.cwd(), target) || target;
  return [
    `  development instance: state under ./${DEVELOPMENT_DIR}`,
    `  config:  ${file ? here(file) : '(defaults)'}${created ? ' (written now)' : ''}: edit it or \`npm run gatehouse -- config main\`, then restart`,
    logged
      ? `  log:     ${here(developmentLogPath(process.cwd()))} (\`npm run gatehouse -- logs\`; GATEHOUSE_LOG=stdout shows it here)`
      : '  log:     JSON on stdout (GATEHOUSE_LOG=stdout)',
  ];
}

/** Resolves once SIGTERM or SIGINT stopped the server gracefully; a second signal changes nothing. */
function untilSignal(server: Pick<RunningServer, 'stop'>): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const shutdown = () => {
      if (stopping) return;
      stopping = true;
      server.stop().then(resolve, resolve);
    };
    process.on('SIGTERM', shutdown);
    process.on('SIGINT', shutdown);
  });
}
