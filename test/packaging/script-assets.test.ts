// The executable's script assets are stored compressed (packaging/build/script-assets.ts); release.test.ts runs every
// command of the built executable through them and checks the command line's text is not in it as such.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import { compressScriptAssets, isScriptAsset } from '../../packaging/build/script-assets.ts';
import { scratchDir } from '../helpers/config.ts';

test('scripts are replaced by compressed copies that give back every byte; other assets are left as they are', () => {
  const dir = scratchDir('script-assets');
  const script = path.join(dir, 'command-line.cjs');
  const text = `"use strict";${'var a=require("node:fs");'.repeat(2000)}`;
  writeFileSync(script, text);
  const page = path.join(dir, 'index.html');
  writeFileSync(page, '<!doctype html>');
  const assets = compressScriptAssets({ 'app/command-line.cjs': script, 'web/dist/index.html': page }, dir);
  assert.deepEqual(Object.keys(assets), ['app/command-line.cjs', 'web/dist/index.html']);
  assert.equal(assets['web/dist/index.html'], page);
  const compressed = readFileSync(assets['app/command-line.cjs'] as string);
  assert.ok(compressed.length < text.length / 20, `${compressed.length} bytes for ${text.length}`);
  assert.equal(brotliDecompressSync(compressed).toString('latin1'), text);
  // The original is untouched: the tests of the bundle read it.
  assert.equal(readFileSync(script, 'utf8'), text);
});

test('the scripts are the .cjs assets', () => {
  assert.equal(isScriptAsset('first-use/viem.cjs'), true);
  assert.equal(isScriptAsset('app/command-line.cjs'), true);
  assert.equal(isScriptAsset('migrations/0001_init.sql'), false);
  assert.equal(isScriptAsset('web/dist/assets/index.js'), false);
});
