import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { assertAscii, bundleApp } from '../../packaging/build/bundle-app.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-bundle-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("the release executable's main script (packaging/build/bundle-app.ts)", () => {
  test('a file with one character beyond ASCII is refused, naming its line; an ASCII one passes', () => {
    const file = path.join(dir, 'script.cjs');
    writeFileSync(file, 'const a = 1;\nconst dash = /[\\u2010-\\u2014]/;\n');
    assertAscii(file);
    writeFileSync(file, 'const a = 1;\nconst dash = /[\u2010-\u2014]/;\n');
    assert.throws(
      () => assertAscii(file),
      /script\.cjs:2: a character beyond ASCII near "const a = 1;\nconst dash = \/\[/,
    );
  });

  test('the bundle of src/ is ASCII and carries no comments, and is smaller than its sources', async () => {
    const outfile = path.join(dir, 'gatehouse.cjs');
    const metafile = await bundleApp(path.join(ROOT, 'packaging/build/sea-entry.ts'), outfile, {
      packageJson: path.join(ROOT, 'package.json'),
      version: '0.0.0-test',
    });
    assertAscii(outfile);
    const text = readFileSync(outfile, 'utf8');
    // The packages' doc comments (over a thousand `@param` lines before), matched without printing nine megabytes.
    assert.equal(text.includes('@param'), false, 'a doc comment is left in the bundle');
    const inputBytes = Object.values(metafile.inputs).reduce((sum, input) => sum + input.bytes, 0);
    assert.ok(text.length < inputBytes * 0.8, `${text.length} bytes of bundle for ${inputBytes} of input`);
    // Names are kept for stack traces.
    assert.equal(text.includes('function normalizeUserCode('), true);
  });
});
