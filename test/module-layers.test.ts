// DESIGN.md "Layout": imports run one way between feature modules. `npm run lint` (dpdm) refuses a cycle between
// files; this refuses the wider one a file-level check misses: two folders under src/ that import each other, even
// through different files (oauth → clients → oauth would let the two grow back into one tangle).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '../src');
const IMPORT = /\bfrom '(\.{1,2}\/[^']+)'/g;

/** The top-level folder under src/ a file belongs to, or null for files directly in src/ (the app's wiring). */
const moduleOf = (file: string) => {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length > 0 ? (first ?? null) : null;
};

function moduleEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const from = moduleOf(file);
    if (!from) continue;
    for (const [, target] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const to = moduleOf(path.resolve(entry.parentPath, target ?? ''));
      if (to && to !== from) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
  }
  return edges;
}

describe('module layering under src/', () => {
  test('no two feature modules import each other', () => {
    const edges = moduleEdges();
    const twoWay = [...edges].flatMap(([from, targets]) =>
      [...targets].filter((to) => from < to && edges.get(to)?.has(from)).map((to) => `${from} <-> ${to}`),
    );
    assert.deepEqual(twoWay, []);
  });

  test('the check sees the imports it is meant to judge', () => {
    assert.ok(moduleEdges().get('oauth')?.has('clients'), 'oauth uses the clients module');
  });
});
