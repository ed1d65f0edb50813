import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { scratchDir } from '../../test/helpers/config.ts';
import { readAssets } from './assets.ts';

describe('the UI assets read at startup', () => {
  test('are the regular, visibly named files of the directory, typed by extension', () => {
    const dir = scratchDir('assets');
    writeFileSync(path.join(dir, 'index-abc.js'), 'console.log(1)');
    writeFileSync(path.join(dir, 'index-abc.css'), 'body{}');
    writeFileSync(path.join(dir, 'logo.svg'), '<svg/>');
    writeFileSync(path.join(dir, 'data.bin'), Buffer.from([0, 1, 2]));
    writeFileSync(path.join(dir, '.env'), 'SECRET=1');
    mkdirSync(path.join(dir, 'nested.js'));
    const assets = readAssets(dir);
    assert.deepEqual([...assets.keys()].sort(), ['data.bin', 'index-abc.css', 'index-abc.js', 'logo.svg']);
    assert.equal(assets.get('index-abc.js')?.contentType, 'text/javascript; charset=utf-8');
    assert.equal(assets.get('index-abc.css')?.contentType, 'text/css; charset=utf-8');
    assert.equal(assets.get('logo.svg')?.contentType, 'image/svg+xml');
    assert.equal(assets.get('data.bin')?.contentType, 'application/octet-stream');
    assert.deepEqual(assets.get('data.bin')?.body, Buffer.from([0, 1, 2]));
  });

  test('are none when the UI is not built', () => {
    assert.equal(readAssets(path.join(scratchDir('assets'), 'missing')).size, 0);
  });
});
