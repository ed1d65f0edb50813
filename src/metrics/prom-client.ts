// The parts of prom-client the service uses, each required from its own module. The package's index also loads the
// Pushgateway client, Summary with its t-digest and every default metric, whose process CPU metric requires the
// OpenTelemetry API at load for exemplars the service never turns on: about 14 MB RSS and 5 MB private memory in a
// bare process (docs/decisions.md, "prom-client without its index"). The types are the package's own;
// src/metrics/prom-client.test.ts checks the default metrics against the package's collectDefaultMetrics.
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
export type Registry = PromClient.Registry;
export const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
export const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
export const Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;

/** The supervisor's aggregation of its workers' registries, and a worker's answer to it (node-totals.ts). */
export const AggregatorRegistry = require('prom-client/lib/cluster') as typeof PromClient.AggregatorRegistry;
export type AggregatorRegistry = PromClient.AggregatorRegistry<PromClient.PrometheusContentType>;

type DefaultMetric = (registry: Registry, config: { eventLoopMonitoringPrecision: number }) => void;

/**
 * prom-client's default metrics (its lib/defaultMetrics.js, in its order), but the process CPU counters written here:
 * the same names, help and values, without the exemplar code that loads OpenTelemetry.
 */
export function collectDefaultMetrics(registry: Registry): void {
  processCpuTotal(registry);
  const metrics = [
    require('prom-client/lib/metrics/processStartTime'),
    require('prom-client/lib/metrics/osMemoryHeap'),
    require('prom-client/lib/metrics/processOpenFileDescriptors'),
    require('prom-client/lib/metrics/processMaxFileDescriptors'),
    require('prom-client/lib/metrics/eventLoopLag'),
    require('prom-client/lib/metrics/processResources'),
    require('prom-client/lib/metrics/processHandles'),
    require('prom-client/lib/metrics/processRequests'),
    require('prom-client/lib/metrics/heapSizeAndUsed'),
    require('prom-client/lib/metrics/heapSpacesSizeAndUsed'),
    require('prom-client/lib/metrics/version'),
    require('prom-client/lib/metrics/gc'),
  ] as DefaultMetric[];
  for (const metric of metrics) metric(registry, { eventLoopMonitoringPrecision: 10 });
}

/** The process's CPU time since it started, in seconds: user, system and both, read at each scrape. */
function processCpuTotal(registry: Registry): void {
  let last = process.cpuUsage();
  // The first counter's collect, which runs first at each scrape, sets all three.
  new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers: [registry],
    collect() {
      const now = process.cpuUsage();
      const user = (now.user - last.user) / 1e6;
      const system = (now.system - last.system) / 1e6;
      last = now;
      this.inc(user);
      systemSeconds.inc(system);
      totalSeconds.inc(user + system);
    },
  });
  const systemSeconds = new Counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
    registers: [registry],
  });
  const totalSeconds = new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers: [registry],
  });
}
