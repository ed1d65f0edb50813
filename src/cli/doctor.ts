// `gatehouse doctor`: what works and what the operator must still do. Exits 1 when something needed is broken
// (a `fail` line), 0 otherwise; `warn` lines are advice.
import { promises as dns } from 'node:dns';
import { type LoadedConfig, loadConfig } from '../config/load.ts';
import { loadSecrets } from '../crypto/secret-files.ts';
import { migrationsApplied, readMigrations } from '../db/migrate.ts';
import { redactDatabaseUrl, type Sql } from '../db/pool.ts';
import { type Check, check, formatCheck } from '../delivery/check.ts';
import type { DnsResolver } from '../delivery/dns-report.ts';
import { deliveryChecks, outboxCheck } from '../delivery/doctor-checks.ts';
import { type Command, parseFlags } from './args.ts';
import { withDatabase } from './database.ts';

export interface DoctorDeps {
  resolver: DnsResolver;
  withDatabase: <T>(url: string, dataDir: string, work: (sql: Sql) => Promise<T>) => Promise<T>;
}

async function databaseChecks(loaded: LoadedConfig, deps: DoctorDeps): Promise<Check[]> {
  const { config } = loaded;
  const where = config.database.url === '' ? 'embedded' : redactDatabaseUrl(config.database.url);
  try {
    return await deps.withDatabase(config.database.url, config.data.dir, async (sql) => {
      await sql`select 1`;
      const migrations = readMigrations();
      const applied = await migrationsApplied(sql, migrations).catch(() => false);
      return [
        check('ok', 'database', `${where} is reachable`),
        applied
          ? check('ok', 'migrations', `all ${migrations.length} applied`)
          : check('warn', 'migrations', 'some are pending: `gatehouse migrate` or `gatehouse serve` applies them'),
        ...(applied ? [await outboxCheck(sql)] : []),
      ];
    });
  } catch (error) {
    return [check('fail', 'database', `${where} is unreachable: ${(error as Error).message}`)];
  }
}

export async function runDoctor(loaded: LoadedConfig, deps: DoctorDeps): Promise<Check[]> {
  const { config } = loaded;
  const checks = [check('ok', 'config', loaded.file ?? '(none: development defaults)')];
  try {
    loadSecrets(config.secrets.dir);
    checks.push(check('ok', 'secrets', config.secrets.dir));
  } catch (error) {
    checks.push(check(loaded.development ? 'warn' : 'fail', 'secrets', (error as Error).message));
  }
  checks.push(...(await databaseChecks(loaded, deps)));
  for (const item of loaded.deferred) checks.push(check('warn', 'deferred', `${item.key}: ${item.reason}`));
  checks.push(...(await deliveryChecks(config, { resolver: deps.resolver })));
  return checks;
}

export const doctorCommand: Command = {
  summary: 'Check the configuration, database, secrets and delivery; say what is still to do.',
  async run(args) {
    const { values } = parseFlags(args, { config: { type: 'string' } });
    const checks = await runDoctor(loadConfig({ configPath: values.config }), {
      resolver: new dns.Resolver(),
      withDatabase,
    });
    process.stdout.write(`${checks.map(formatCheck).join('\n')}\n`);
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  },
};
