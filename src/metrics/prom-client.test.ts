import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as PromClient from 'prom-client';
import { collectDefaultMetrics, Registry } from './prom-client.ts';

/** What a scrape says of each metric besides its values: its name, type, help and labels, in order. */
async function described(registry: PromClient.Registry) {
  return (await registry.getMetricsAsJSON()).map(({ name, type, help, aggregator }) => ({
    name,
    type,
    help,
    aggregator,
  }));
}

test('the default metrics are prom-client’s own, in its order, with the same names, types and help', async () => {
  const ours = new Registry();
  collectDefaultMetrics(ours);
  const theirs = new PromClient.Registry();
  PromClient.collectDefaultMetrics({ register: theirs });
  const expected = await described(theirs);
  assert.ok(expected.length > 20, 'the check sees the default metrics');
  assert.deepEqual(await described(ours), expected);
  const comments = (text: string) => text.split('\n').filter((line) => line.startsWith('#'));
  assert.deepEqual(comments(await ours.metrics()), comments(await theirs.metrics()));
});

test('the process CPU counters add up the CPU time spent between scrapes', async () => {
  const registry = new Registry();
  collectDefaultMetrics(registry);
  const read = async () => {
    const values = new Map<string, number>();
    for (const metric of await registry.getMetricsAsJSON())
      if (metric.name.startsWith('process_cpu_')) values.set(metric.name, metric.values[0]?.value ?? Number.NaN);
    return values;
  };
  const before = await read();
  const started = process.cpuUsage();
  let spin = 0;
  while (process.cpuUsage(started).user < 50_000) spin++;
  const after = await read();
  assert.ok(spin > 0);
  const grew = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  assert.ok(grew('process_cpu_user_seconds_total') >= 0.05, `user grew ${grew('process_cpu_user_seconds_total')}`);
  assert.ok(grew('process_cpu_system_seconds_total') >= 0);
  const total = after.get('process_cpu_seconds_total') ?? 0;
  const sum = (after.get('process_cpu_user_seconds_total') ?? 0) + (after.get('process_cpu_system_seconds_total') ?? 0);
  assert.ok(Math.abs(total - sum) < 1e-9, `total ${total} against user + system ${sum}`);
});
