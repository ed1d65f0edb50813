// `gatehouse serve` of a development instance writes its configuration file (at its first start) and its secret
// files. On a read-only file system or a full disk it stops with one line naming the path and the problem (exit 78),
// not a stack trace. The file systems are real: small tmpfs mounts this test makes and removes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { DEVELOPMENT_CONFIG } from '../../src/config/development-file.ts';
import { runCli } from '../helpers/cli.ts';

/** A tmpfs of `size` mounted on a fresh directory, unmounted when the file ends. */
function mountTmpfs(options: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-fs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir]);
  after(() => {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** The development instance's configuration file as its first start left it, so the start goes on to the secrets. */
function writeDevelopmentConfig(dir: string): void {
  mkdirSync(path.join(dir, '.gatehouse'), { mode: 0o700 });
  writeFileSync(path.join(dir, '.gatehouse/gatehouse.toml'), DEVELOPMENT_CONFIG, { mode: 0o600 });
}

describe('gatehouse serve that cannot write its configuration or secret files', () => {
  test('a first start on a read-only file system exits 78 naming the configuration file and EROFS', async () => {
    const dir = mountTmpfs('ro,size=64k');
    const result = await runCli(['serve'], { cwd: dir });
    assert.equal(result.code, 78);
    assert.equal(
      result.stderr,
      `gatehouse serve: Cannot write the development configuration ${dir}/.gatehouse/gatehouse.toml: the file system is read-only (EROFS)\n`,
    );
  });

  test('a first start on a full disk exits 78 naming the configuration file and ENOSPC, and leaves no partial file', async () => {
    const dir = mountTmpfs('size=16k');
    try {
      for (let i = 0; ; i += 1) writeFileSync(path.join(dir, `filler${i}`), Buffer.alloc(4096));
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    const result = await runCli(['serve'], { cwd: dir });
    assert.equal(result.code, 78);
    assert.equal(
      result.stderr,
      `gatehouse serve: Cannot write the development configuration ${dir}/.gatehouse/gatehouse.toml: the disk is full (ENOSPC)\n`,
    );
    assert.equal(existsSync(path.join(dir, '.gatehouse/gatehouse.toml')), false);
  });

  test('on a read-only file system it exits 78 naming the secrets directory and EROFS', async () => {
    const dir = mountTmpfs('size=64k');
    writeDevelopmentConfig(dir);
    execFileSync('mount', ['-o', 'remount,ro', dir]);
    const result = await runCli(['serve'], { cwd: dir });
    assert.equal(result.code, 78);
    // The log file cannot be opened either: said, and the log stays on stdout.
    assert.equal(
      result.stderr,
      `Cannot write the development log ${dir}/.gatehouse/log: the file system is read-only (EROFS); logging to stdout\n` +
        `gatehouse serve: Cannot write secret directory ${dir}/.gatehouse/secrets: the file system is read-only (EROFS)\n`,
    );
  });

  test('on a full disk it exits 78 naming the secret file and ENOSPC, and leaves no partial file behind', async () => {
    const dir = mountTmpfs('size=16k');
    writeDevelopmentConfig(dir);
    // Fill the file system: what is left is less than one secret file.
    try {
      for (let i = 0; ; i += 1) writeFileSync(path.join(dir, `filler${i}`), Buffer.alloc(4096));
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
    }
    const result = await runCli(['serve'], { cwd: dir });
    assert.equal(result.code, 78);
    assert.equal(
      result.stderr,
      `gatehouse serve: Cannot write secret file ${dir}/.gatehouse/secrets/signing.key: the disk is full (ENOSPC)\n`,
    );
    assert.deepEqual(readdirSync(path.join(dir, '.gatehouse/secrets')), []);
  });
});
