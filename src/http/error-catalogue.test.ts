import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { renderConfigurationDoc } from '../config/docs.ts';
import { errorCatalogue } from './error-catalogue.ts';
import { renderErrorsDoc } from './errors-doc.ts';

const read = (file: string) => readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');

describe('generated reference documents', () => {
  test('docs/errors.md lists every catalogue code and no other (run `npm run docs` after changing codes)', () => {
    const documented = new Set(
      [...read('errors.md').matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`),
    );
    const catalogued = new Set(Object.entries(errorCatalogue).map(([code, entry]) => `${code} ${entry.status}`));
    assert.deepEqual(
      [...catalogued].filter((c) => !documented.has(c)),
      [],
      'codes missing from docs/errors.md',
    );
    assert.deepEqual(
      [...documented].filter((c) => !catalogued.has(c)),
      [],
      'codes in docs/errors.md that the catalogue lacks',
    );
    assert.equal(read('errors.md'), renderErrorsDoc());
  });

  test('docs/configuration.md is generated from the current schema (run `npm run docs`)', () => {
    assert.equal(read('configuration.md'), renderConfigurationDoc());
  });

  test('every code is snake_case with a 4xx/5xx status and a sentence of description', () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      assert.match(code, /^[a-z]+(_[a-z]+)*$/);
      assert.ok(entry.status >= 400 && entry.status < 600, code);
      assert.match(entry.description, /^[A-Z].*\.$/, code);
    }
  });
});
