// `gatehouse` as an operator runs it: exit codes and messages of src/main.ts (64 usage, 78 configuration).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';

describe('gatehouse serve --config with a bad file', () => {
  test('exits 78 (EX_CONFIG) naming the file and every bad key, before opening anything', async () => {
    const file = path.join(scratchDir(), 'bad.toml');
    const lines = [
      '[server]',
      'issuer = "http://localhost:8080"',
      'listen = 8080',
      'colour = "blue"',
      '[organization]',
      'id = "acme"',
      'name = "Acme"',
      'owner_subject = "owner@acme.test"',
    ];
    writeFileSync(file, `${lines.join('\n')}\n`, { mode: 0o600 });
    const result = await runCli(['serve', '--config', file]);
    assert.equal(result.code, 78);
    assert.equal(
      result.stderr,
      [
        `gatehouse serve: Invalid configuration in ${file}:`,
        '  server.colour: unknown key',
        '  server.listen: must be a string',
        '',
      ].join('\n'),
    );
    assert.equal(result.stdout, '');
  });

  test('exits 78 naming a config file that does not exist', async () => {
    const file = path.join(scratchDir(), 'missing.toml');
    const result = await runCli(['serve', '--config', file]);
    assert.equal(result.code, 78);
    assert.equal(result.stderr, `gatehouse serve: Invalid configuration in ${file}:\n  (file): file not found\n`);
  });
});

describe('gatehouse with an unknown command', () => {
  test('exits 64 (EX_USAGE) with the usage text on stderr', async () => {
    const result = await runCli(['frobnicate']);
    assert.equal(result.code, 64);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^gatehouse frobnicate: Unknown command "frobnicate"\.\n\nUsage: gatehouse <command>/);
    for (const name of ['serve', 'setup', 'migrate', 'owner', 'help'])
      assert.match(result.stderr, new RegExp(`\\n {2}${name} +\\S`), `usage lists ${name}`);
  });

  test('gatehouse help prints the same usage on stdout and exits 0', async () => {
    const result = await runCli(['help']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^Usage: gatehouse <command> \[--config FILE\] \[options\]\n\nCommands:\n/);
  });
});

describe('the installed gatehouse command (src/gatehouse.mjs, run through its shebang)', () => {
  const launcher = fileURLToPath(new URL('../gatehouse.mjs', import.meta.url));

  test('gatehouse help, run through the shebang with its start options, prints the usage and exits 0', async () => {
    // The shebang finds `node` on PATH, as for an operator; put this Node first.
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` };
    const child = spawn(launcher, ['help'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
    assert.match(stdout, /^Usage: gatehouse <command> \[--config FILE\] \[options\]\n\nCommands:\n/);
  });

  test('npm start and npm run gatehouse run the launcher itself, so its shebang is the one place for start options', () => {
    const scripts = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts;
    assert.equal(scripts.start, './src/gatehouse.mjs serve');
    assert.equal(scripts.gatehouse, './src/gatehouse.mjs');
    assert.match(
      readFileSync(launcher, 'utf8'),
      /^#!\/usr\/bin\/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=2\n/,
    );
  });
});
