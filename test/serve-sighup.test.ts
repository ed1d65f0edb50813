// `gatehouse serve` answers SIGHUP from its first line (src/cli/serve.ts): a reload sent while the node starts (a
// certificate hook, `systemctl reload`) must not end it, since Node's default action for SIGHUP is to exit and
// systemd counts that exit as clean and does not restart the service.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { MAIN } from './helpers/cli.ts';
import { scratchDir } from './helpers/config.ts';
import { createTestDatabase } from './helpers/database.ts';
import { writeNodeConfig } from './helpers/gatehouse-process.ts';

test('a SIGHUP while the node prepares its database does not end it', async () => {
  // An empty database: the start migrates it and logs "migrations applied" before it loads the application.
  const database = await createTestDatabase({ migrated: false });
  const dir = scratchDir();
  const configFile = writeNodeConfig({ dir, secretsDir: path.join(dir, 'secrets'), workers: 1 });
  const child = spawn(process.execPath, [MAIN, 'serve', '--config', configFile], {
    env: { ...process.env, DATABASE_URL: database.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code, signal) => resolve(`exited with ${signal ?? code}`)),
  );
  let signalled = false;
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString()).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.startsWith('{')))
      if ((JSON.parse(line) as { msg?: string }).msg === 'migrations applied' && !signalled) {
        signalled = true;
        child.kill('SIGHUP');
      }
  });
  let stderr = '';
  const listening = new Promise<string>((resolve) =>
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('Gatehouse is listening on ')) resolve('listening');
    }),
  );
  try {
    assert.equal(await Promise.race([listening, exited]), 'listening', stderr);
    assert.ok(signalled, 'the SIGHUP was sent while the node started');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 'exited with 0');
});
