// Reference scenario: the throughput of the cheapest route on the real app (GET /health/live), against which route
// scenarios report their ratios.
import { startServer } from '../helpers/server.ts';
import { httpRequestsPerSecond, type Scenario, sampled } from '../lib.ts';

export const scenario: Scenario = {
  name: 'trivial-route',
  description: 'GET /health/live, concurrency 32, keep-alive: the reference for route throughput ratios.',
  async run(context) {
    const server = await startServer();
    try {
      const samples = await sampled(context.rounds, async () => {
        const { perSecond } = await httpRequestsPerSecond(
          server.url,
          { method: 'GET', path: '/health/live', expectStatus: 200 },
          32,
          context.roundMs,
        );
        return perSecond;
      });
      return { metrics: [{ name: 'GET /health/live', unit: 'req/s', samples }], ratios: [] };
    } finally {
      await server.stop();
    }
  },
};
