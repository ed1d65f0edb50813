// Introspection of a JWT access token by a confidential client at concurrency 32, against the trivial route of the
// same server measured in the same run.
import { FORM, form, startOAuthBench } from '../helpers/oauth.ts';
import { type BenchContext, httpRequestsPerSecond, median, type Scenario, sampled } from '../lib.ts';

export const scenario: Scenario = {
  name: 'oauth-introspection',
  description:
    'POST /oauth/introspect (JWT access token, client_secret_post), concurrency 32, keep-alive; reference: GET /health/live on the same server.',
  async run(context: BenchContext) {
    const bench = await startOAuthBench();
    try {
      const { access_token } = await bench.userGrant();
      const body = form({
        client_id: bench.service.clientId,
        client_secret: bench.service.secret,
        token: access_token,
      });
      const trivial: number[] = [];
      const ours: number[] = [];
      let errors = 0;
      await sampled(context.rounds, async () => {
        trivial.push(
          (
            await httpRequestsPerSecond(
              bench.server.url,
              { method: 'GET', path: '/health/live', expectStatus: 200 },
              32,
              context.roundMs,
            )
          ).perSecond,
        );
        const r = await httpRequestsPerSecond(
          bench.server.url,
          { method: 'POST', path: '/oauth/introspect', headers: FORM, body, expectStatus: 200 },
          32,
          context.roundMs,
        );
        ours.push(r.perSecond);
        errors += r.errors;
        return 0;
      });
      return {
        metrics: [
          { name: 'GET /health/live (reference)', unit: 'req/s', samples: trivial },
          { name: 'POST /oauth/introspect', unit: 'req/s', samples: ours },
        ],
        ratios: [
          { name: 'introspection / trivial route', value: median(ours) / median(trivial), target: { atLeast: 0.5 } },
        ],
        notes: [`Non-200 responses: ${errors}.`],
      };
    } finally {
      await bench.server.stop();
    }
  },
};
