// Shared pieces for benchmark scenarios. Benchmarks are not tests: they report medians of several rounds and ratios
// against a reference measured in the same run, because the machine is shared and noisy.
import { Pool } from 'undici';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.ts';

export interface Metric {
  name: string;
  unit: string;
  /** One value per round; the report shows the median. */
  samples: number[];
}

export interface Ratio {
  name: string;
  value: number;
  /** The goal, e.g. at least 0.85 (`atLeast`) or at most 100 (`atMost`). */
  target?: { atLeast?: number; atMost?: number };
}

export interface ScenarioResult {
  metrics: Metric[];
  ratios: Ratio[];
  notes?: string[];
}

export interface BenchContext {
  /** Rounds per measurement; the median is reported. */
  rounds: number;
  /** Length of one measured round. */
  roundMs: number;
  /**
   * Length of the unmeasured run of every load, ours and the references', before the first round: JIT compilation,
   * connection set-up and first-use caches belong to start-up, not to the steady state the rounds compare.
   */
  warmUpMs: number;
}

export interface Scenario {
  name: string;
  description: string;
  run(context: BenchContext): Promise<ScenarioResult>;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A fresh migrated database that the scenario drops itself. */
export async function benchDatabase(): Promise<TestDatabase> {
  return await createTestDatabase({ autoDrop: false });
}

/** Runs `operation` with `concurrency` workers for `durationMs`; returns completed operations per second. */
export async function operationsPerSecond(
  operation: () => Promise<unknown>,
  concurrency: number,
  durationMs: number,
): Promise<number> {
  let completed = 0;
  const deadline = performance.now() + durationMs;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        await operation();
        completed += 1;
      }
    }),
  );
  return completed / ((performance.now() - start) / 1000);
}

export interface HttpLoad {
  method: 'GET' | 'POST';
  path: string | (() => string);
  headers?: Record<string, string> | (() => Record<string, string>);
  body?: string | (() => string);
  /** Status every response must have; anything else is counted as an error. */
  expectStatus: number;
}

/** HTTP load on keep-alive connections: requests per second over one round, and the error count. */
export async function httpRequestsPerSecond(
  origin: string,
  load: HttpLoad,
  concurrency: number,
  durationMs: number,
): Promise<{ perSecond: number; errors: number }> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  let errors = 0;
  const value = <T>(v: T | (() => T)) => (typeof v === 'function' ? (v as () => T)() : v);
  try {
    const perSecond = await operationsPerSecond(
      async () => {
        const response = await pool.request({
          method: load.method,
          path: value(load.path),
          headers: load.headers ? value(load.headers) : {},
          body: load.body === undefined ? null : value(load.body),
        });
        await response.body.dump();
        if (response.statusCode !== load.expectStatus) errors += 1;
      },
      concurrency,
      durationMs,
    );
    return { perSecond, errors };
  } finally {
    await pool.close();
  }
}

/**
 * The unmeasured warm-up of an HTTP load (BenchContext.warmUpMs). Its rate is dropped, but not its failures: a load
 * that answers wrongly before the rounds would answer wrongly in them too.
 */
export async function warmUpHttp(origin: string, load: HttpLoad, concurrency: number, context: BenchContext) {
  const { errors } = await httpRequestsPerSecond(origin, load, concurrency, context.warmUpMs);
  if (errors > 0) throw new Error(`warm-up of ${load.method} ${String(load.path)}: ${errors} unexpected responses`);
}

/** Median of `rounds` measurements of `measure`. */
export async function sampled(rounds: number, measure: () => Promise<number>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < rounds; i += 1) samples.push(await measure());
  return samples;
}

/**
 * Runs `measure` (which returns requests per second) and reports, besides the rate, the CPU time
 * the server process spent per request (µs, all its threads): where the time goes, independent of how much CPU
 * other work on the machine left over.
 */
export async function withServerCpu<R extends { perSecond: number }>(
  server: { cpuSeconds(): number },
  measure: () => Promise<R>,
): Promise<R & { cpuMicrosPerRequest: number }> {
  const before = server.cpuSeconds();
  const start = performance.now();
  const result = await measure();
  const requests = result.perSecond * ((performance.now() - start) / 1000);
  const cpu = server.cpuSeconds() - before;
  return { ...result, cpuMicrosPerRequest: requests > 0 ? (cpu * 1e6) / requests : Number.NaN };
}
