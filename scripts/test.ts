// `npm test`: runs every *.test.ts under src/ and test/ with node:test against a real PostgreSQL:
// DATABASE_URL when set (CI points it at the local server), otherwise one embedded server for the whole run.
// Each test file then makes its own database from a migrated template (test/helpers/database.ts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';

const patterns = process.argv.slice(2);
const files = patterns.length > 0 ? patterns : ['src/**/*.test.ts', 'test/**/*.test.ts'];

let stopEmbedded: (() => Promise<void>) | null = null;
let scratch: string | null = null;
if (!process.env.DATABASE_URL) {
  scratch = mkdtempSync(path.join(tmpdir(), 'gatehouse-test-pg-'));
  const embedded = await startEmbeddedPostgres(scratch, (line) => process.stderr.write(`${line}\n`));
  stopEmbedded = embedded.stop;
  // Tests create databases, so they connect to the maintenance database.
  process.env.DATABASE_URL = embedded.url.replace(/\/gatehouse$/, '/postgres');
  process.stderr.write('No DATABASE_URL: tests run against an embedded PostgreSQL.\n');
}

const child = spawn(
  process.execPath,
  ['--test', '--test-concurrency=3', '--test-timeout=120000', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env: process.env },
);
const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
await stopEmbedded?.();
if (scratch) rmSync(scratch, { recursive: true, force: true });
process.exit(code);
