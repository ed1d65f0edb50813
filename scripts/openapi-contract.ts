// The published contract, api/openapi.json: what GET /openapi.json answers on an instance whose configuration turns on
// every route family that configuration can switch (the development mailbox), so the file lists every route.
// `npm run openapi` writes it; test/openapi/contract-drift.test.ts fails when the committed file differs.
// The app is built, never listened on, against a database client that never connects: building registers routes
// without a query, and the document needs nothing else (nor do the route validators, scripts/route-validators.ts).
// Secrets are generated in a scratch directory and removed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import postgres from 'postgres';
import Value from 'typebox/value';
import { type AppDeps, buildApp } from '../src/app.ts';
import { createAudit } from '../src/audit/audit.ts';
import { type Config, ConfigSchema } from '../src/config/schema.ts';
import { generateSecretFiles, loadSecrets } from '../src/crypto/secret-files.ts';
import { readMigrations } from '../src/db/migrate.ts';

export const CONTRACT_FILE = new URL('../api/openapi.json', import.meta.url);

/** The server URL the committed document names; a running instance names its own issuer instead. */
export const CONTRACT_ISSUER = 'https://id.example.com';

/** The configuration the committed document describes: every optional route family on, nothing secret in it. */
export function contractConfig(issuer = CONTRACT_ISSUER): Config {
  return Value.Default(ConfigSchema, {
    server: { issuer, listen: '127.0.0.1:0' },
    organization: { id: 'example', name: 'Example', owner_subject: 'owner@example.com' },
    logging: { level: 'warn' },
    delivery: { kind: 'dev_mailbox' },
    // No per-node token-state cache: its LISTEN connection is the one query building the app would make.
    tokens: { state_cache_seconds: 0 },
  }) as Config;
}

/** The document as the committed file holds it: pretty-printed JSON with a final newline. */
export const contractText = (document: unknown): string => `${JSON.stringify(document, null, 2)}\n`;

export async function generateContract(): Promise<unknown> {
  return withContractApp({}, async (app) => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (response.statusCode !== 200) throw new Error(`GET /openapi.json answered ${response.statusCode}`);
    return response.json();
  });
}

/** Builds the app on the contract's configuration (every route it can serve), hands it to `use`, and closes it. */
export async function withContractApp<T>(
  options: Pick<AppDeps, 'buildValidator'>,
  use: (app: FastifyInstance) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-contract-'));
  // Port 1 on loopback: nothing listens there, and nothing should try (building the app makes no query).
  const sql = postgres('postgres://gatehouse@127.0.0.1:1/gatehouse', { max: 1, connect_timeout: 1 });
  try {
    generateSecretFiles(`${dir}/secrets`);
    const secrets = loadSecrets(`${dir}/secrets`);
    const clock = () => new Date();
    const { app } = await buildApp({
      config: contractConfig(),
      sql,
      secrets,
      audit: createAudit(sql, secrets.audit, clock),
      migrations: readMigrations(),
      clock,
      logStream: { write: () => {} },
      ...options,
    });
    try {
      await app.ready();
      return await use(app);
    } finally {
      await app.close();
    }
  } finally {
    await sql.end({ timeout: 0 });
    rmSync(dir, { recursive: true, force: true });
  }
}
