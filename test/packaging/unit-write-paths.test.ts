// What the service writes at run time must lie where packaging/gatehouse.service lets it write (ProtectSystem=strict
// makes everything else read-only), for the installed layout of packaging/gatehouse.example.toml.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'smol-toml';
import { acmePaths } from '../../src/tls/acme-files.ts';

const packaging = path.join(import.meta.dirname, '../../packaging');
const unit = readFileSync(path.join(packaging, 'gatehouse.service'), 'utf8');
const example = parse(readFileSync(path.join(packaging, 'gatehouse.example.toml'), 'utf8')) as {
  data: { dir: string };
  secrets: { dir: string };
};
const writable = (/^ReadWritePaths=(.*)$/m.exec(unit)?.[1] ?? '').split(/\s+/).filter(Boolean);
const under = (file: string, dir: string) => !path.relative(dir, file).startsWith('..');

describe('gatehouse.service write paths', () => {
  test('ProtectSystem=strict with the data and log directories writable, secrets.dir not', () => {
    assert.match(unit, /^ProtectSystem=strict$/m);
    assert.deepEqual(writable, ['/var/lib/gatehouse', '/var/log/gatehouse']);
    assert.ok(!writable.some((dir) => under(example.secrets.dir, dir)));
  });

  test('tls.mode acme writes its keys, certificate and state only where the unit lets it', () => {
    const paths = acmePaths({ secretsDir: example.secrets.dir, dataDir: example.data.dir });
    for (const file of [paths.accountKey, paths.certificateKey, paths.certificate, paths.state])
      assert.ok(
        writable.some((dir) => under(file, dir)),
        `${file} is not under ReadWritePaths=${writable.join(' ')}`,
      );
  });
});
