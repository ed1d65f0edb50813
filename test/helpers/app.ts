// Builds the real app against a per-file database, freshly generated secrets and a controllable clock.
import { Writable } from 'node:stream';
import { after } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp, type Services } from '../../src/app.ts';
import { createAudit } from '../../src/audit/audit.ts';
import type { Config } from '../../src/config/schema.ts';
import { generateSecretFiles, loadSecrets, type Secrets } from '../../src/crypto/secret-files.ts';
import { readMigrations } from '../../src/db/migrate.ts';
import type { Sql } from '../../src/db/pool.ts';
import { makeConfig, scratchDir } from './config.ts';
import { watchAnswers } from './contract.ts';
import { createTestDatabase } from './database.ts';

/** Captures every log line the app writes, so tests can assert what never reaches a log. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  get text(): string {
    return this.lines.join('\n');
  }
}

/** A clock tests move by hand instead of sleeping. */
export class TestClock {
  #now: number;
  constructor(start = Date.now()) {
    this.#now = start;
  }
  now = (): Date => new Date(this.#now);
  advance(seconds: number): void {
    this.#now += seconds * 1000;
  }
}

export interface TestApp {
  app: FastifyInstance;
  sql: Sql;
  config: Config;
  secrets: Secrets;
  logs: LogCapture;
  clock: TestClock;
  /** Base URL once listen() was called (listen: true), else ''. */
  url: string;
  deps: AppDeps;
  services: Services;
}

let sharedSecrets: Secrets | null = null;

/** Secrets are generated once per test file (RSA generation is slow) and reused by every app in it. */
export function testSecrets(): Secrets {
  if (!sharedSecrets) {
    const dir = `${scratchDir('gatehouse-secrets-')}/secrets`;
    generateSecretFiles(dir);
    sharedSecrets = loadSecrets(dir);
  }
  return sharedSecrets;
}

export interface TestAppOptions {
  config?: Config;
  sql?: Sql;
  listen?: boolean;
  clock?: TestClock;
  /** Listen on this port (browser tests set the issuer to the real origin first); 0 picks a free one. */
  port?: number;
  /** Registers extra routes (probes for infrastructure tests) before the app is ready. */
  extend?: (app: FastifyInstance) => void;
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const config = options.config ?? makeConfig();
  const sql = options.sql ?? (await createTestDatabase()).sql;
  const secrets = testSecrets();
  const logs = new LogCapture();
  const clock = options.clock ?? new TestClock();
  const deps: AppDeps = {
    config,
    sql,
    secrets,
    audit: createAudit(sql, secrets.audit, clock.now),
    migrations: readMigrations(),
    clock: clock.now,
    logStream: logs,
  };
  const { app, services } = await buildApp(deps);
  // Every answer the tests see is checked against the published contract (test/helpers/contract.ts).
  watchAnswers(app);
  options.extend?.(app);
  let url = '';
  if (options.listen) url = await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  else await app.ready();
  after(() => app.close());
  return { app, sql, config, secrets, logs, clock, url, deps, services };
}
