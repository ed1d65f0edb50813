// The installed service as systemd runs it (packaging/gatehouse.service): its state from `systemctl show`, start,
// stop and restart through `systemctl`, and whether the listener answers /health/ready. Everything goes through the
// `systemctl` found on PATH, so tests put a stub there.
import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import type { Config } from '../config/schema.ts';
import { getLocalJson, localUrlOf } from '../operations/service-probe.ts';
import { UnavailableError as ServiceUnavailableError } from './failures.ts';

export const UNIT = 'gatehouse.service';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs systemctl; null when there is no systemctl on PATH. */
export function systemctl(args: string[]): Promise<Run | null> {
  return new Promise((resolve, reject) => {
    execFile('systemctl', args, { timeout: 120_000 }, (error, stdout, stderr) => {
      const e = error as (NodeJS.ErrnoException & { code?: string | number }) | null;
      if (e?.code === 'ENOENT') return resolve(null);
      if (e && typeof e.code !== 'number') return reject(e);
      resolve({ code: typeof e?.code === 'number' ? e.code : 0, stdout, stderr });
    });
  });
}

export interface ServiceState {
  /** loaded, not-found, ... (systemd's LoadState). */
  load: string;
  /** active, inactive, failed, activating, deactivating (ActiveState). */
  active: string;
  sub: string;
  pid: number | null;
  /** When it last became active, or null. */
  since: Date | null;
}

/** The unit's state, or null when there is no systemctl here. */
export async function serviceState(): Promise<ServiceState | null> {
  const run = await systemctl([
    'show',
    UNIT,
    '--property=LoadState,ActiveState,SubState,MainPID,ActiveEnterTimestamp',
    '--timestamp=unix',
  ]);
  if (!run) return null;
  const values = Object.fromEntries(
    run.stdout
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  const since = /^@(\d+)$/.exec(values.ActiveEnterTimestamp ?? '');
  const pid = Number(values.MainPID ?? 0);
  return {
    load: values.LoadState || 'not-found',
    active: values.ActiveState || 'inactive',
    sub: values.SubState || '',
    pid: pid > 0 ? pid : null,
    since: since?.[1] && values.ActiveState === 'active' ? new Date(Number(since[1]) * 1000) : null,
  };
}

/** The state of an installed unit; refuses (exit 69) without systemd or without the unit. */
export async function installedService(): Promise<ServiceState> {
  const state = await serviceState();
  if (!state)
    throw new ServiceUnavailableError(
      'systemctl was not found: this host does not run Gatehouse under systemd (run `gatehouse serve` yourself)',
    );
  if (state.load !== 'loaded')
    throw new ServiceUnavailableError(
      `${UNIT} is not installed (systemd says LoadState=${state.load}): packaging/install.sh installs it`,
    );
  return state;
}

/**
 * `systemctl start|restart gatehouse.service` as an operator's command means it: first `systemctl reset-failed`,
 * because systemd's start limit (the unit's StartLimitBurst per StartLimitIntervalSec) counts every start, the
 * CLI's own too, so a few `gatehouse config` edits in a row (each restarts the service) would otherwise leave the
 * next start refused with "start request repeated too quickly". The limit stays in force for systemd's own
 * restarts of a service that keeps failing. Null when there is no systemctl.
 */
export async function startUnit(action: 'start' | 'restart'): Promise<Run | null> {
  const reset = await systemctl(['reset-failed', UNIT]);
  if (!reset) return null;
  return systemctl([action, UNIT]);
}

/** `systemctl <action> gatehouse.service`; throws with systemctl's own words when it fails. */
export async function controlService(action: 'start' | 'stop' | 'restart'): Promise<void> {
  await installedService();
  const run = action === 'stop' ? await systemctl([action, UNIT]) : await startUnit(action);
  if (!run) throw new ServiceUnavailableError('systemctl was not found');
  if (run.code !== 0)
    throw new ServiceUnavailableError(
      `systemctl ${action} ${UNIT} failed (exit ${run.code}): ${run.stderr.trim() || run.stdout.trim()}`,
    );
}

/** Where the listener is reached from this host: a wildcard address is probed on loopback. */
export const healthUrl = (config: Config): string =>
  localUrlOf(config.server.listen, '/health/ready', config.tls.mode !== 'external');

export interface Health {
  ready: boolean;
  /** `ready`, the service's reason, or why it could not be asked. */
  detail: string;
}

/**
 * GET /health/ready on the listener (through the one local probe, which passes the trusted-proxy rule and does not
 * check the certificate: an expired or not yet issued one must not hide the answer).
 */
export async function probeHealth(url: string, timeoutMs = 3000): Promise<Health> {
  try {
    const { status, body } = await getLocalJson(url, timeoutMs);
    if (status === 200) return { ready: true, detail: 'ready' };
    const parsed = (body ?? {}) as { error_description?: unknown; message?: unknown };
    const reason = parsed.error_description ?? parsed.message;
    return { ready: false, detail: `not ready: ${typeof reason === 'string' ? reason : `HTTP ${status}`}` };
  } catch (error) {
    return {
      ready: false,
      detail: `not answering: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
}

/** Probes until ready or `timeoutMs` passed; returns the last answer. */
export async function waitUntilHealthy(
  url: string,
  timeoutMs: number,
  onWait: (health: Health) => void = () => {},
): Promise<Health> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const health = await probeHealth(url, Math.min(3000, Math.max(500, deadline - Date.now())));
    if (health.ready || Date.now() >= deadline) return health;
    onWait(health);
    await delay(500);
  }
}
