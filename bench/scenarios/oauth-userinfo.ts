// Userinfo with a user access token at concurrency 32, against the trivial route of the same server.
import { startOAuthBench } from '../helpers/oauth.ts';
import { type BenchContext, httpRequestsPerSecond, median, type Scenario, sampled, withServerCpu } from '../lib.ts';

export const scenario: Scenario = {
  name: 'oauth-userinfo',
  description:
    'GET /oauth/userinfo (Bearer JWT), concurrency 32, keep-alive; reference: GET /health/live on the same server.',
  async run(context: BenchContext) {
    const bench = await startOAuthBench();
    try {
      const { access_token } = await bench.userGrant();
      const trivial: number[] = [];
      const ours: number[] = [];
      const trivialCpu: number[] = [];
      const oursCpu: number[] = [];
      let errors = 0;
      await sampled(context.rounds, async () => {
        const reference = await withServerCpu(bench.server, () =>
          httpRequestsPerSecond(
            bench.server.url,
            { method: 'GET', path: '/health/live', expectStatus: 200 },
            32,
            context.roundMs,
          ),
        );
        trivial.push(reference.perSecond);
        trivialCpu.push(reference.cpuMicrosPerRequest);
        const r = await withServerCpu(bench.server, () =>
          httpRequestsPerSecond(
            bench.server.url,
            {
              method: 'GET',
              path: '/oauth/userinfo',
              headers: { authorization: `Bearer ${access_token}` },
              expectStatus: 200,
            },
            32,
            context.roundMs,
          ),
        );
        ours.push(r.perSecond);
        oursCpu.push(r.cpuMicrosPerRequest);
        errors += r.errors;
        return 0;
      });
      return {
        metrics: [
          { name: 'GET /health/live (reference)', unit: 'req/s', samples: trivial },
          { name: 'GET /oauth/userinfo', unit: 'req/s', samples: ours },
          { name: 'server CPU per GET /health/live (all threads)', unit: 'µs', samples: trivialCpu },
          { name: 'server CPU per GET /oauth/userinfo (all threads)', unit: 'µs', samples: oursCpu },
        ],
        ratios: [{ name: 'userinfo / trivial route', value: median(ours) / median(trivial), target: { atLeast: 0.5 } }],
        notes: [`Non-200 responses: ${errors}.`],
      };
    } finally {
      await bench.server.stop();
    }
  },
};
