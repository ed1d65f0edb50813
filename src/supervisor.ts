// server.workers > 1: a supervisor (node:cluster primary), once the database is prepared, forks the workers, which
// share the listener: the primary owns the listening socket and hands connections to the workers round-robin. A node
// with a database server of its own runs this file in the handed-over process that loads almost nothing else
// (src/supervisor-handover.ts); the development instance runs it after preparing here (src/supervisor-start.ts). Each worker is a whole Gatehouse
// (its own pool, audit chain, delivery poller and housekeeping); nothing is shared between them but PostgreSQL, as
// between nodes. A worker that exits unasked is restarted after a backoff; SIGTERM drains every worker through its
// own graceful shutdown and stops the embedded database last.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { forkThisCommand } from './cluster-fork.ts';
import type { Config } from './config/schema.ts';
import { serveNodeMetrics } from './metrics/node-totals-serve.ts';
import type { EnrollmentLink } from './prepare-database.ts';
import type { RunningServer } from './server.ts';
import type { SupervisorLog } from './supervisor-log.ts';
import { restartDelayMs } from './worker-restart.ts';
import { WorkerStartFailed } from './worker-start-failed.ts';

/**
 * `auto` is one worker per two CPUs the process may use (cgroup and affinity limits included), at least one: a single
 * worker already keeps about two CPUs busy, its event loop and the libuv pool that runs RSA signing and argon2id
 * (docs/decisions.md, "The default number of workers"). So a 2-CPU machine runs one process, not a supervisor and two.
 */
export function workerCount(setting: Config['server']['workers'], cpus = availableParallelism()): number {
  return setting === 'auto' ? Math.max(1, Math.floor(cpus / 2)) : setting;
}

/** A worker that ran this long before exiting counts as healthy: its restart waits the shortest delay again. */
const HEALTHY_UPTIME_MS = 60_000;

/** What the supervisor reads of the configuration once the database is prepared (src/supervisor-handover.ts). */
export interface SupervisorSettings {
  workers: number;
  logLevel: Config['logging']['level'];
  tlsMode: Config['tls']['mode'];
  shutdownTimeoutSeconds: number;
}

export const supervisorSettings = (config: Config, workers: number): SupervisorSettings => ({
  workers,
  logLevel: config.logging.level,
  tlsMode: config.tls.mode,
  shutdownTimeoutSeconds: config.server.shutdown_timeout_seconds,
});

/** What preparing the database left for the workers and the start notes. */
export interface PreparedDatabase {
  url: string;
  stopEmbedded: (() => Promise<void>) | null;
  enrollmentLink: EnrollmentLink | null;
  ownerEnrolled: boolean;
}

/** Forks the workers of a prepared node, restarts those that exit unasked, and drains them all at stop. */
export async function superviseWorkers(
  settings: SupervisorSettings,
  prepared: PreparedDatabase,
  log: SupervisorLog,
): Promise<RunningServer> {
  const count = settings.workers;
  forkThisCommand();

  // Workers re-run this same command line; the prepared URL reaches them as DATABASE_URL.
  const env = { DATABASE_URL: prepared.url };
  let stopping = false;
  let url = '';
  const slots = new Map<Worker, { slot: number; startedAt: number; listening: boolean }>();
  const failures = new Map<number, number>();

  // A scrape of /metrics reaches one worker, which asks here for the node's totals across all of them.
  serveNodeMetrics();
  const fork = (slot: number) => {
    const worker = cluster.fork(env);
    slots.set(worker, { slot, startedAt: Date.now(), listening: false });
  };

  const allListening = new Promise<void>((resolve, reject) => {
    cluster.on('listening', (worker, address) => {
      const state = slots.get(worker);
      if (!state) return;
      state.listening = true;
      const host = address.address?.includes(':') ? `[${address.address}]` : (address.address ?? '127.0.0.1');
      url = `${settings.tlsMode === 'external' ? 'http' : 'https'}://${host}:${address.port}`;
      log.info({ worker: state.slot, pid: worker.process.pid, listen: url }, 'worker listening');
      if ([...slots.values()].filter((s) => s.listening).length === count) resolve();
    });
    cluster.on('exit', (worker, code, signal) => {
      const state = slots.get(worker);
      slots.delete(worker);
      if (!state || stopping) return;
      // A worker that never started (a port in use, a bad secret) would only fail again: stop the whole node.
      if (!state.listening && !url) {
        reject(new WorkerStartFailed(state.slot, code, signal));
        return;
      }
      const healthy = Date.now() - state.startedAt >= HEALTHY_UPTIME_MS;
      const attempt = healthy ? 1 : (failures.get(state.slot) ?? 0) + 1;
      failures.set(state.slot, attempt);
      const delayMs = restartDelayMs(attempt);
      // exitCode, not code: the log redacts every `code` field (an authorization code's name).
      log.error(
        { worker: state.slot, pid: worker.process.pid, exitCode: code, signal, restartInMs: delayMs },
        'worker exited unexpectedly; restarting it',
      );
      setTimeout(() => {
        if (!stopping) fork(state.slot);
      }, delayMs).unref();
    });
  });

  const stopWorkers = async () => {
    stopping = true;
    const running = [...slots.keys()];
    const exits = running.map((worker) => new Promise<void>((resolve) => worker.once('exit', () => resolve())));
    for (const worker of running) worker.process.kill('SIGTERM');
    // Each worker forces its own connections closed at shutdown_timeout_seconds; past that (and a margin), kill it.
    const killTimer = setTimeout(
      () => {
        for (const worker of running) if (!worker.isDead()) worker.process.kill('SIGKILL');
      },
      (settings.shutdownTimeoutSeconds + 10) * 1000,
    );
    await Promise.all(exits);
    clearTimeout(killTimer);
  };

  for (let slot = 1; slot <= count; slot += 1) fork(slot);
  try {
    await allListening;
  } catch (error) {
    await stopWorkers();
    await prepared.stopEmbedded?.();
    throw error;
  }
  log.info({ workers: count, listen: url, pid: process.pid }, 'listening');

  let stopped: Promise<void> | null = null;
  return {
    url,
    enrollmentLink: prepared.enrollmentLink,
    ownerEnrolled: prepared.ownerEnrolled,
    // Each worker serves and reloads its own certificate (tls.mode files): SIGHUP is passed on to every worker.
    tls: {
      initial: null,
      attach() {},
      async reload() {
        for (const worker of slots.keys()) worker.process.kill('SIGHUP');
        return true;
      },
      challengePort: null,
      async stop() {},
    },
    stop() {
      stopped ??= (async () => {
        log.info({ workers: slots.size }, 'stopping: draining every worker');
        await stopWorkers();
        await prepared.stopEmbedded?.();
        log.info('stopped');
      })();
      return stopped;
    },
  };
}
