import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratchDir } from '../test/helpers/config.ts';
import { BUNDLE_ROOT, listFiles, readBundledFile, runsFromReleaseExecutable } from './bundled-files.ts';

// Inside the release executable the same functions answer from SEA assets: test/packaging/release.test.ts runs it.
describe('files shipped with the code, read from a checkout', () => {
  test('the bundle root is the repository, holding the migrations', () => {
    assert.equal(runsFromReleaseExecutable(), false);
    assert.equal(BUNDLE_ROOT, `${path.resolve(import.meta.dirname, '..')}/`);
    assert.ok(listFiles(`${BUNDLE_ROOT}migrations`).includes('0001_foundation.sql'));
  });

  test('lists only the regular files directly in a directory, sorted, and none for a missing one', () => {
    const dir = scratchDir('bundled-');
    writeFileSync(path.join(dir, 'b.sql'), 'b');
    writeFileSync(path.join(dir, 'a.sql'), 'a');
    mkdirSync(path.join(dir, 'nested'));
    writeFileSync(path.join(dir, 'nested', 'c.sql'), 'c');
    assert.deepEqual(listFiles(dir), ['a.sql', 'b.sql']);
    assert.deepEqual(listFiles(path.join(dir, 'missing')), []);
  });

  test('reads a file as bytes, and null when it does not exist', () => {
    const dir = scratchDir('bundled-');
    writeFileSync(path.join(dir, 'a.sql'), 'select 1');
    assert.deepEqual(readBundledFile(path.join(dir, 'a.sql')), Buffer.from('select 1'));
    assert.equal(readBundledFile(path.join(dir, 'missing.sql')), null);
  });
});
