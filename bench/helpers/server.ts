// A real Gatehouse app on a loopback port, with its own database and secrets, for HTTP scenarios.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { type AppDeps, buildApp, type GatehouseApp } from '../../src/app.ts';
import { createAudit } from '../../src/audit/audit.ts';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles, loadSecrets } from '../../src/crypto/secret-files.ts';
import { readMigrations } from '../../src/db/migrate.ts';
import { makeConfig } from '../../test/helpers/config.ts';
import { benchDatabase } from '../lib.ts';

/** Every load comes from one loopback address, so the per-IP sign-in start limit is off for benchmarks. */
export const BENCH_CONFIG = { logging: { level: 'warn' as const }, login: { starts_per_ip_per_minute: 0 } };

export interface BenchServer {
  url: string;
  built: GatehouseApp;
  deps: AppDeps;
  stop(): Promise<void>;
}

export async function startServer(config: Config = makeConfig(BENCH_CONFIG)): Promise<BenchServer> {
  const database = await benchDatabase();
  const secretsDir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bench-'));
  generateSecretFiles(`${secretsDir}/secrets`);
  const secrets = loadSecrets(`${secretsDir}/secrets`);
  const deps: AppDeps = {
    config,
    sql: database.sql,
    secrets,
    audit: createAudit(database.sql, secrets.audit),
    migrations: readMigrations(),
    clock: () => new Date(),
    logStream: new Writable({ write: (_chunk, _encoding, done) => done() }),
  };
  const built = await buildApp(deps);
  const url = await built.app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    built,
    deps,
    async stop() {
      await built.app.close();
      await database.drop();
      rmSync(secretsDir, { recursive: true, force: true });
    },
  };
}
