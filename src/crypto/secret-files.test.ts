import assert from 'node:assert/strict';
import { chmodSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { runCli } from '../../test/helpers/cli.ts';
import { scratchDir } from '../../test/helpers/config.ts';
import { generateSecretFiles, loadSecrets, SECRET_FILES, SecretFileError } from './secret-files.ts';

function freshSecrets(): string {
  const dir = path.join(scratchDir(), 'secrets');
  generateSecretFiles(dir);
  return dir;
}

describe('secret files', () => {
  test('generation makes every file SPEC.md lists, 0600 in a 0700 directory, and never overwrites one', () => {
    const dir = freshSecrets();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    const before = Object.values(SECRET_FILES).map((s) => readFileSync(path.join(dir, s.file), 'utf8'));
    for (const spec of Object.values(SECRET_FILES))
      assert.equal(statSync(path.join(dir, spec.file)).mode & 0o777, 0o600, spec.file);
    const again = generateSecretFiles(dir);
    assert.deepEqual(again.created, []);
    assert.equal(again.kept.length, Object.keys(SECRET_FILES).length);
    assert.deepEqual(
      Object.values(SECRET_FILES).map((s) => readFileSync(path.join(dir, s.file), 'utf8')),
      before,
    );
  });

  test('loaded keys are 32 random bytes each and distinct; the OIDC key is an RSA PEM', () => {
    const secrets = loadSecrets(freshSecrets());
    const keys = [
      secrets.signing,
      secrets.totp,
      secrets.passwordPepper,
      secrets.recoveryPepper,
      secrets.audit,
      secrets.clientSecret,
      secrets.metrics,
      secrets.delivery,
    ];
    for (const key of keys) assert.equal(key.length, 32);
    assert.equal(new Set(keys.map((k) => k.toString('hex'))).size, keys.length);
    assert.match(secrets.oidcSigningKey, /^-----BEGIN PRIVATE KEY-----/);
  });

  const refusals: [string, (dir: string) => void, RegExp][] = [
    [
      'a missing file',
      (dir) => rmSync(path.join(dir, 'audit-chain.key')),
      /audit-chain.key is missing; run `gatehouse setup`/,
    ],
    [
      'a group-readable file',
      (dir) => chmodSync(path.join(dir, 'totp-encryption.key'), 0o640),
      /totp-encryption.key is accessible to group or others \(mode 640\); run chmod 600/,
    ],
    [
      'a world-readable directory',
      (dir) => chmodSync(dir, 0o755),
      /directory .* is accessible to group or others \(mode 755\); run chmod 700/,
    ],
    [
      'a truncated key',
      (dir) => writeFileSync(path.join(dir, 'password-pepper.key'), 'c2hvcnQ\n'),
      /password-pepper.key must hold at least 32 random bytes/,
    ],
    [
      'a non-PEM signing key',
      (dir) => writeFileSync(path.join(dir, 'oidc-signing-key.pem'), 'nope'),
      /oidc-signing-key.pem is not a PEM private key/,
    ],
  ];
  for (const [name, damage, message] of refusals) {
    test(`refuses ${name}`, () => {
      const dir = freshSecrets();
      damage(dir);
      assert.throws(
        () => loadSecrets(dir),
        (error: unknown) => error instanceof SecretFileError && message.test(error.message),
      );
    });
  }

  test('the service refuses to start when a secret file is readable by others', async () => {
    const root = scratchDir();
    const dir = path.join(root, 'secrets');
    generateSecretFiles(dir);
    chmodSync(path.join(dir, 'signing.key'), 0o644);
    const config = path.join(root, 'gatehouse.toml');
    writeFileSync(
      config,
      `[server]\nlisten = "127.0.0.1:0"\n[secrets]\ndir = "${dir}"\n[database]\nurl = "postgres://127.0.0.1:1/unused"\n`,
    );
    const result = await runCli(['serve', '--config', config]);
    assert.equal(result.code, 78);
    assert.match(
      result.stderr,
      /gatehouse serve: Secret file .*signing.key is accessible to group or others \(mode 644\)/,
    );
  });
});
