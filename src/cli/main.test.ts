// `gatehouse` as an operator runs it: exit codes and messages of src/main.ts (64 usage, 78 configuration).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
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
