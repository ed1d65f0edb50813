// `gatehouse doctor`: what works and what the operator must still do. Exits 1 when something needed is broken
// (a `fail` line), 0 otherwise; `warn` lines are advice. The report itself is src/status/report.ts, which
// GET /admin/status shares; this command adds the checks only a local operator can make and prints lines.
import { promises as dns } from 'node:dns';
import type { LoadedConfig } from '../config/load.ts';
import { loadSecrets, type Secrets } from '../crypto/secret-files.ts';
import { readMigrations } from '../db/migrate.ts';
import type { Sql } from '../db/pool.ts';
import { type Check, check, formatCheck } from '../delivery/check.ts';
import type { DnsResolver } from '../delivery/dns-report.ts';
import { gatewayChecks } from '../gateway/doctor-checks.ts';
import { exchangeClientChecks, exchangeClientProblems } from '../gateway/exchange-client.ts';
import { audienceChecks, unregisteredAudiences } from '../gateway/registered-audiences.ts';
import { directoryChecks } from '../login/ldap/doctor-checks.ts';
import { samlConnectionChecks } from '../login/saml/doctor-checks.ts';
import { ethereumRpcChecks, farcasterRpcChecks } from '../login/web3/doctor-checks.ts';
import { collectStatus, statusChecks } from '../status/report.ts';
import type { CommandInput } from './args.ts';
import { withDatabase } from './database.ts';
import { loadCommandConfig } from './development-instance.ts';
import { keyringFor } from './keys.ts';

export interface DoctorDeps {
  resolver: DnsResolver;
  withDatabase: <T>(url: string, dataDir: string, work: (sql: Sql) => Promise<T>) => Promise<T>;
  /** Bound on the delivery checks; 15 s by default. */
  checkTimeoutMs?: number;
}

export async function runDoctor(loaded: LoadedConfig, deps: DoctorDeps): Promise<Check[]> {
  const { config } = loaded;
  const checks = [check('ok', 'config', loaded.file ?? '(none: development defaults)')];
  let secrets: Secrets | null = null;
  try {
    secrets = loadSecrets(config.secrets.dir);
    checks.push(check('ok', 'secrets', config.secrets.dir));
  } catch (error) {
    checks.push(check(loaded.development ? 'warn' : 'fail', 'secrets', (error as Error).message));
  }
  const clock = () => new Date();
  const report = await collectStatus({
    config,
    withDatabase: (work) => deps.withDatabase(config.database.url, config.data.dir, work),
    keyring: secrets ? (sql) => keyringFor(sql, secrets, config, clock) : null,
    migrations: readMigrations(),
    resolver: deps.resolver,
    checkTimeoutMs: deps.checkTimeoutMs ?? 15_000,
    clock,
  });
  // Unreachable, the database is already a failure of the status report above; nothing more to say here.
  const missing = report.database.reachable
    ? await deps.withDatabase(config.database.url, config.data.dir, (sql) => unregisteredAudiences(sql, config))
    : [];
  const exchangeProblems = report.database.reachable
    ? await deps.withDatabase(config.database.url, config.data.dir, (sql) => exchangeClientProblems(sql, config))
    : [];
  const ethereum = await ethereumRpcChecks(config, deps.checkTimeoutMs ?? 15_000);
  const farcaster = await farcasterRpcChecks(config, deps.checkTimeoutMs ?? 15_000);
  return [
    ...checks,
    ...statusChecks(report),
    ...gatewayChecks(config),
    ...(report.database.reachable ? audienceChecks(config, missing) : []),
    ...(report.database.reachable ? exchangeClientChecks(config, exchangeProblems) : []),
    ...(await directoryChecks(config)),
    ...samlConnectionChecks(config, clock()),
    ...ethereum,
    ...farcaster,
  ];
}

/** `gatehouse doctor`: every check as a line (or --json); exits 1 when one failed. */
export async function doctor({ values }: CommandInput<{ config?: string; json?: boolean }>): Promise<number> {
  const checks = await runDoctor(loadCommandConfig({ configPath: values.config }, { needsInstance: true }), {
    resolver: new dns.Resolver(),
    withDatabase,
  });
  const failed = checks.some((c) => c.status === 'fail');
  if (values.json) process.stdout.write(`${JSON.stringify({ ok: !failed, checks }, null, 2)}\n`);
  else process.stdout.write(`${checks.map(formatCheck).join('\n')}\n`);
  return failed ? 1 : 0;
}
