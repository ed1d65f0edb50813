// What `gatehouse config …` leaves on disk when root runs it on an installed layout (packaging/install.sh):
// gatehouse.toml root:gatehouse 0640 with the operator's comments, secrets.dir and its files the service user's.
// The service must still read everything afterwards, and the backups must not pile up beside the secrets.
import assert from 'node:assert/strict';
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli, writeCliConfig } from '../helpers/cli.ts';
import { scratchDir } from '../helpers/config.ts';

/** Stands for the `gatehouse` system user and group (the tests run as root, as install.sh and the CLI do). */
const SERVICE = 65_534;

function installedLayout(): { file: string; secrets: string; backups: string } {
  const file = writeCliConfig();
  const dir = path.dirname(file);
  const secrets = path.join(dir, 'secrets');
  const text = readFileSync(file, 'utf8')
    .replace('[server]', '# Acme production: ask ops before changing\n[server]')
    .replace('name = "Acme"', 'name = "Acme" # shown on the sign-in page');
  writeFileSync(file, text);
  chownSync(file, 0, SERVICE);
  chmodSync(file, 0o640);
  chownSync(secrets, SERVICE, SERVICE);
  for (const name of readdirSync(secrets)) chownSync(path.join(secrets, name), SERVICE, SERVICE);
  return { file, secrets, backups: path.join(dir, 'config-backups') };
}

const ownership = (file: string) => {
  const stat = statSync(file);
  return { uid: stat.uid, gid: stat.gid, mode: (stat.mode & 0o777).toString(8) };
};

describe('gatehouse config writes on an installed layout', () => {
  test('config main --set keeps the owner, group, mode and comments of gatehouse.toml', async () => {
    const { file, backups } = installedLayout();
    const result = await runCli([
      'config',
      'main',
      '--config',
      file,
      '--set',
      'tokens.access_token_ttl_seconds=600',
      '--no-restart',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(ownership(file), { uid: 0, gid: SERVICE, mode: '640' });
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^# Acme production: ask ops before changing\n\[server\]\n/);
    assert.match(text, /\nname = "Acme" # shown on the sign-in page\n/);
    assert.match(text, /\n\[tokens\]\naccess_token_ttl_seconds = 600\n/);
    const [backup] = readdirSync(backups);
    assert.match(
      result.stdout,
      new RegExp(`^Wrote ${file} \\(previous configuration saved as ${backups}/${backup}\\)\\.\n`),
    );
    assert.deepEqual(ownership(backups), { uid: 0, gid: 0, mode: '700' });
    assert.equal(ownership(path.join(backups, backup ?? '')).mode, '640');
  });

  test('config providers writes a new secret file the service user owns, 0600, and keeps the config readable', async () => {
    const { file, secrets } = installedLayout();
    const secretFile = path.join(scratchDir(), 'github.secret');
    writeFileSync(secretFile, 'github-client-secret-1\n');
    const result = await runCli([
      'config',
      'providers',
      '--config',
      file,
      '--provider',
      'github',
      '--enable',
      '--client-id',
      'Iv1.acme',
      '--client-secret-file',
      secretFile,
      '--no-restart',
    ]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const written = path.join(secrets, 'provider-github.secret');
    assert.deepEqual(ownership(written), { uid: SERVICE, gid: SERVICE, mode: '600' });
    assert.equal(readFileSync(written, 'utf8'), 'github-client-secret-1\n');
    assert.deepEqual(ownership(file), { uid: 0, gid: SERVICE, mode: '640' });
    assert.match(readFileSync(file, 'utf8'), /^# Acme production: ask ops before changing\n/);
  });

  test('keeps only the last five backups, in config-backups/, and nothing beside the config or the secrets', async () => {
    const { file, secrets, backups } = installedLayout();
    const before = readdirSync(secrets).sort();
    const texts: string[] = [];
    for (let ttl = 301; ttl <= 307; ttl += 1) {
      texts.push(readFileSync(file, 'utf8'));
      const result = await runCli([
        'config',
        'main',
        '--config',
        file,
        '--set',
        `tokens.access_token_ttl_seconds=${ttl}`,
        '--no-restart',
      ]);
      assert.equal(result.code, 0, result.stderr);
    }
    const kept = readdirSync(backups).sort();
    assert.equal(kept.length, 5);
    assert.ok(
      kept.every((name) => /^gatehouse\.toml\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/.test(name)),
      kept.join(),
    );
    assert.deepEqual(
      kept.map((name) => readFileSync(path.join(backups, name), 'utf8')),
      texts.slice(-5),
      'the newest five, oldest first',
    );
    assert.deepEqual(readdirSync(path.dirname(file)).sort(), ['config-backups', 'gatehouse.toml', 'secrets']);
    assert.deepEqual(readdirSync(secrets).sort(), before);
    assert.equal(existsSync(path.join(secrets, 'config-backups')), false);
  });
});
