// docs/metrics.md against what the registry serves: the same gatehouse_* names, types and labels both ways, and
// every value the sign-in labels can take.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { Sql } from '../db/pool.ts';
import { createMetrics, SIGN_IN_METHODS, SIGN_IN_OUTCOMES } from './registry.ts';

const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');

/** The table's gatehouse_* rows: name → { type, labels (the backticked names in the labels column), meaning }. */
function documented(): Map<string, { type: string; labels: string[]; meaning: string }> {
  const rows = new Map<string, { type: string; labels: string[]; meaning: string }>();
  for (const line of doc.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const name = /^`(gatehouse_\w+)`$/.exec(cells[1] ?? '')?.[1];
    if (!name) continue;
    // Label names only: "`state` (`pending`, `dead`)" lists values in parentheses.
    const labels = [...(cells[3] ?? '').replace(/\([^)]*\)/g, '').matchAll(/`(\w+)`/g)].map((m) => m[1] as string);
    rows.set(name, { type: cells[2] ?? '', labels, meaning: cells[4] ?? '' });
  }
  return rows;
}

describe('docs/metrics.md', () => {
  // Nothing here scrapes: the registry's metric objects are read, so no collect() reaches the database.
  const served = createMetrics({} as Sql)
    .registry.getMetricsAsArray()
    .filter((metric) => metric.name.startsWith('gatehouse_'))
    .map((metric) => {
      const { name, type, labelNames } = metric as unknown as { name: string; type: string; labelNames: string[] };
      return { name, type, labels: [...labelNames] };
    });

  test('lists exactly the gatehouse_* metrics served, with their types and labels', () => {
    const rows = documented();
    assert.deepEqual([...rows.keys()].sort(), served.map((m) => m.name).sort());
    for (const metric of served) {
      const row = rows.get(metric.name);
      assert.deepEqual(
        { type: row?.type, labels: row?.labels },
        { type: metric.type, labels: metric.labels },
        metric.name,
      );
    }
  });

  test('names every method and outcome gatehouse_sign_ins_total can carry', () => {
    const meaning = documented().get('gatehouse_sign_ins_total')?.meaning ?? '';
    for (const value of [...SIGN_IN_METHODS, ...SIGN_IN_OUTCOMES])
      assert.ok(meaning.includes(`\`${value}\``), `${value} is not documented`);
  });
});
