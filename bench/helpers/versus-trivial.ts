// A route measured against the trivial route (GET /health/live) of the same server in the same rounds: requests per
// second and server CPU per request for both, and their throughput ratio. Introspection and userinfo use it.
import {
  type BenchContext,
  type HttpLoad,
  httpRequestsPerSecond,
  median,
  type ScenarioResult,
  sampled,
  warmUpHttp,
  withServerCpu,
} from '../lib.ts';
import type { BenchServer } from './server.ts';

/** The reference route of every throughput ratio (trivial-route.ts reports it alone). */
export const TRIVIAL: HttpLoad = { method: 'GET', path: '/health/live', expectStatus: 200 };

export async function versusTrivialRoute(
  server: BenchServer,
  context: BenchContext,
  measured: { label: string; ratio: string; load: HttpLoad },
): Promise<ScenarioResult> {
  const trivial: number[] = [];
  const ours: number[] = [];
  const trivialCpu: number[] = [];
  const oursCpu: number[] = [];
  let errors = 0;
  await warmUpHttp(server.url, TRIVIAL, 32, context);
  await warmUpHttp(server.url, measured.load, 32, context);
  await sampled(context.rounds, async () => {
    const reference = await withServerCpu(server, () =>
      httpRequestsPerSecond(server.url, TRIVIAL, 32, context.roundMs),
    );
    trivial.push(reference.perSecond);
    trivialCpu.push(reference.cpuMicrosPerRequest);
    const r = await withServerCpu(server, () => httpRequestsPerSecond(server.url, measured.load, 32, context.roundMs));
    ours.push(r.perSecond);
    oursCpu.push(r.cpuMicrosPerRequest);
    errors += r.errors;
    return 0;
  });
  return {
    metrics: [
      { name: 'GET /health/live (reference)', unit: 'req/s', samples: trivial },
      { name: measured.label, unit: 'req/s', samples: ours },
      { name: 'server CPU per GET /health/live (all threads)', unit: 'µs', samples: trivialCpu },
      { name: `server CPU per ${measured.label} (all threads)`, unit: 'µs', samples: oursCpu },
    ],
    ratios: [{ name: measured.ratio, value: median(ours) / median(trivial), target: { atLeast: 0.5 } }],
    notes: [`Non-200 responses: ${errors}.`],
  };
}
