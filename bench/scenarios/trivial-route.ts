// Reference scenario: the throughput of the cheapest route on the real app (GET /health/live), against which route
// scenarios report their ratios.
import { startServer } from '../helpers/server.ts';
import { TRIVIAL } from '../helpers/versus-trivial.ts';
import { httpRequestsPerSecond, type Scenario, sampled, warmUpHttp } from '../lib.ts';

export const scenario: Scenario = {
  name: 'trivial-route',
  description: 'GET /health/live, concurrency 32, keep-alive: the reference for route throughput ratios.',
  async run(context) {
    const server = await startServer();
    try {
      await warmUpHttp(server.url, TRIVIAL, 32, context);
      const samples = await sampled(
        context.rounds,
        async () => (await httpRequestsPerSecond(server.url, TRIVIAL, 32, context.roundMs)).perSecond,
      );
      return { metrics: [{ name: 'GET /health/live', unit: 'req/s', samples }], ratios: [] };
    } finally {
      await server.stop();
    }
  },
};
