// `npm test`: runs every *.test.ts under src/ and test/ (but test/failover/, `npm run test:failover`) with node:test against a real PostgreSQL:
// DATABASE_URL when set (CI points it at the local server), otherwise one embedded server for the whole run; and
// Debian's Chromium for the browser tests, refusing in one line up front when a run includes them and it is missing.
// Each test file then makes its own database from a migrated template (test/helpers/database.ts).
import { spawn } from 'node:child_process';
import { existsSync, globSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { CHROMIUM } from '../test/helpers/chromium.ts';
import { browserTestFiles } from './browser-tests.ts';

const patterns = process.argv.slice(2);
// test/system/ boots a Debian under systemd-nspawn as root (`npm run test:system`); test/failover/ starts a Patroni
// cluster of its own and runs for minutes (`npm run test:failover`). .ci/run runs both by name; neither is the default.
const files =
  patterns.length > 0
    ? patterns
    : globSync(['src/**/*.test.ts', 'test/**/*.test.ts']).filter(
        (file) => !file.startsWith('test/system/') && !file.startsWith('test/failover/'),
      );

// Browser tests drive Debian's Chromium; without it they would each fail with a launch error. Said once, up front,
// before a database starts; a run without browser tests does not need it.
if (!existsSync(CHROMIUM)) {
  const browserFiles = browserTestFiles(files);
  if (browserFiles.length > 0) {
    process.stderr.write(
      `npm test: ${browserFiles.length} browser test file(s) need Debian's chromium at ${CHROMIUM}: apt-get install chromium (or name only other test files: npm test -- FILE...)\n`,
    );
    process.exit(1);
  }
}

// The C++ helper's test builds sdk/cpp with clang-19 and make (sdk/cpp/README.md); without them it would fail in
// the middle of a compile, so the same one line up front.
const cppTest = path.resolve(import.meta.dirname, '../test/sdk/cpp-helper.test.ts');
if (globSync(files).some((file) => path.resolve(file) === cppTest)) {
  const missing = ['clang++-19', 'make'].filter(
    (tool) => !(process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(path.join(dir, tool))),
  );
  if (missing.length > 0) {
    process.stderr.write(
      `npm test: test/sdk/cpp-helper.test.ts needs ${missing.join(' and ')}: apt-get install make clang-19 libssl-dev libcurl4-openssl-dev nlohmann-json3-dev (or name only other test files: npm test -- FILE...)\n`,
    );
    process.exit(1);
  }
}

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
