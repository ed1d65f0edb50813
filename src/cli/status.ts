// `gatehouse status`: is the service running and answering. The short form asks systemd and the listener; --full
// adds what `gatehouse doctor` reads (database, migrations, delivery, providers, TLS expiry, signing key ages) from
// the same report (src/status/report.ts), its delivery checks bounded to 5 s. Exit 0 when the service answers
// ready, 1 otherwise.

import { execFileSync } from 'node:child_process';
import { promises as dns } from 'node:dns';
import { loadSecrets, type Secrets } from '../crypto/secret-files.ts';
import { readMigrations } from '../db/migrate.ts';
import type { Check } from '../delivery/check.ts';
import { collectStatus, type StatusReport } from '../status/report.ts';
import { VERSION } from '../version.ts';
import type { CommandInput } from './args.ts';
import { withDatabase } from './database.ts';
import { type CommandConfig, loadCommandConfig } from './development-instance.ts';
import { keyringFor } from './keys.ts';
import { type Health, healthUrl, probeHealth, type ServiceState, serviceState, UNIT } from './service.ts';
import { paint, progress } from './style.ts';

const DAY_MS = 86_400_000;

export interface StatusSummary {
  version: string;
  service: {
    /** systemd, a development instance, or nothing found. */
    manager: 'systemd' | 'development' | 'none';
    state: string;
    pid: number | null;
    since: string | null;
    uptime_seconds: number | null;
  };
  listener: { url: string; ready: boolean; detail: string };
  full?: {
    status: StatusReport['status'];
    database: { location: string; reachable: boolean; server_version: string | null };
    migrations: { known: number; pending: string[] } | null;
    delivery: { kind: string; state: string; reason: string };
    providers: Check[];
    tls: { mode: string; expires_at: string | null; days_left: number | null; detail: string };
    signing_keys: { kid: string; signing: boolean; age_days: number | null; retired_at: string | null }[];
  };
}

/** Seconds a process has run, from ps; null when it cannot be read. */
function processUptime(pid: number): number | null {
  try {
    const seconds = Number(execFileSync('ps', ['-o', 'etimes=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isFinite(seconds) ? seconds : null;
  } catch {
    return null;
  }
}

function serviceSummary(loaded: CommandConfig, state: ServiceState | null, now: Date): StatusSummary['service'] {
  if (state && state.load === 'loaded')
    return {
      manager: 'systemd',
      state: `${state.active}${state.sub ? ` (${state.sub})` : ''}`,
      pid: state.pid,
      since: state.since?.toISOString() ?? null,
      uptime_seconds: state.since ? Math.floor((now.getTime() - state.since.getTime()) / 1000) : null,
    };
  if (loaded.instance) {
    const uptime = processUptime(loaded.instance.pid);
    return {
      manager: 'development',
      state: 'running',
      pid: loaded.instance.pid,
      since: uptime === null ? null : new Date(now.getTime() - uptime * 1000).toISOString(),
      uptime_seconds: uptime,
    };
  }
  return {
    manager: 'none',
    state: `not installed as ${UNIT} and no development instance here`,
    pid: null,
    since: null,
    uptime_seconds: null,
  };
}

function fullSummary(report: StatusReport, now: Date): NonNullable<StatusSummary['full']> {
  const certificate = report.tls.certificate;
  const tlsCheck = report.tls.checks.find((c) => c.status !== 'ok') ?? report.tls.checks[0];
  return {
    status: report.status,
    database: {
      location: report.database.location,
      reachable: report.database.reachable,
      server_version: report.database.server_version,
    },
    migrations: report.database.migrations,
    delivery: { kind: report.delivery.kind, state: report.delivery.state, reason: report.delivery.reason },
    providers: report.providers.checks,
    tls: {
      mode: report.tls.mode,
      expires_at: certificate?.not_after ?? null,
      days_left: certificate?.days_left ?? null,
      detail: tlsCheck ? tlsCheck.detail : report.tls.mode,
    },
    signing_keys: report.signing_keys.keys.map((key) => ({
      kid: key.kid,
      signing: key.signing,
      age_days: key.created_at ? Math.floor((now.getTime() - Date.parse(key.created_at)) / DAY_MS) : null,
      retired_at: key.retired_at,
    })),
  };
}

export function formatDuration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days}d ${hours}h`;
  if (hours > 0) return `${hours}h ${minutes}m`;
  return minutes > 0 ? `${minutes}m ${seconds % 60}s` : `${seconds}s`;
}

function lines(summary: StatusSummary): string[] {
  const color = paint(process.stdout);
  const mark = (good: boolean, text: string) => (good ? color.green(text) : color.red(text));
  const { service, listener } = summary;
  const out = [
    `version:    ${summary.version}`,
    `service:    ${mark(service.state.startsWith('active') || service.state === 'running', service.state)}${service.manager === 'systemd' ? ` [${UNIT}]` : service.manager === 'development' ? ' [development instance]' : ''}${service.pid ? `, pid ${service.pid}` : ''}`,
    `uptime:     ${service.uptime_seconds === null ? '-' : `${formatDuration(service.uptime_seconds)} (since ${service.since})`}`,
    `listener:   ${listener.url.replace(/\/health\/ready$/, '')} ${mark(listener.ready, listener.detail)}`,
  ];
  const full = summary.full;
  if (!full) return out;
  const level = (status: string, text: string) =>
    status === 'fail' ? color.red(text) : status === 'warn' ? color.yellow(text) : text;
  out.push(
    `database:   ${mark(full.database.reachable, full.database.reachable ? 'reachable' : 'unreachable')} ${full.database.location}${full.database.server_version ? ` (PostgreSQL ${full.database.server_version})` : ''}`,
    `migrations: ${full.migrations ? (full.migrations.pending.length === 0 ? `all ${full.migrations.known} applied` : color.yellow(`${full.migrations.pending.length} pending: ${full.migrations.pending.join(', ')}`)) : '-'}`,
    `delivery:   ${full.delivery.kind}, ${full.delivery.state === 'ready' ? full.delivery.state : color.yellow(full.delivery.state)}: ${full.delivery.reason}`,
    ...full.providers.map(
      (p, i) =>
        `${i === 0 ? 'providers: ' : '           '} ${level(p.status, p.name === 'providers' ? p.detail : `${p.name}: ${p.detail}`)}`,
    ),
    `tls:        ${full.tls.detail.startsWith(full.tls.mode) ? '' : `${full.tls.mode}: `}${full.tls.detail}${full.tls.expires_at ? `; certificate expires ${full.tls.expires_at} (${full.tls.days_left} days)` : ''}`,
    ...full.signing_keys.map(
      (k, i) =>
        `${i === 0 ? 'keys:      ' : '           '} ${k.kid} ${k.signing ? 'signing' : k.retired_at ? `retired ${k.retired_at}` : 'published'}, ${k.age_days === null ? 'initial key (age not recorded)' : `${k.age_days} days old`}`,
    ),
    `overall:    ${level(full.status, full.status)}`,
  );
  return out;
}

export async function collectSummary(
  loaded: CommandConfig,
  options: { full: boolean; onStep?: (text: string) => void },
): Promise<StatusSummary> {
  const now = new Date();
  options.onStep?.('asking systemd');
  const service = serviceSummary(loaded, await serviceState(), now);
  const url = healthUrl(loaded.config);
  options.onStep?.(`probing ${url}`);
  const health: Health = await probeHealth(url);
  const summary: StatusSummary = {
    version: VERSION,
    service,
    listener: { url: url.replace(/\/health\/ready$/, ''), ready: health.ready, detail: health.detail },
  };
  if (!options.full) return summary;
  options.onStep?.('reading the database, TLS and keys');
  const { config } = loaded;
  let secrets: Secrets | null = null;
  try {
    secrets = loadSecrets(config.secrets.dir);
  } catch {
    // the report says the keys are unknown
  }
  const clock = () => now;
  const report = await collectStatus({
    config,
    withDatabase: (work) => withDatabase(config.database.url, config.data.dir, work),
    keyring: secrets ? (sql) => keyringFor(sql, secrets, config, clock) : null,
    migrations: readMigrations(),
    resolver: new dns.Resolver({ timeout: 5000, tries: 1 }),
    checkTimeoutMs: 5000,
    clock,
  });
  return { ...summary, full: fullSummary(report, now) };
}

/** `gatehouse status [--full] [--json]`. */
export async function status({
  values,
}: CommandInput<{ config?: string; full?: boolean; json?: boolean }>): Promise<number> {
  const loaded = loadCommandConfig({ configPath: values.config });
  const steps = values.json ? null : progress(process.stderr);
  const summary = await collectSummary(loaded, { full: Boolean(values.full), onStep: (text) => steps?.step(text) });
  steps?.done();
  if (values.json) process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else process.stdout.write(`${lines(summary).join('\n')}\n`);
  return summary.listener.ready ? 0 : 1;
}
