// Introspection of a JWT access token by a confidential client at concurrency 32, against the trivial route of the
// same server measured in the same run.
import { request } from 'undici';
import { FORM, form, startOAuthBench } from '../helpers/oauth.ts';
import { type BenchContext, httpRequestsPerSecond, median, type Scenario, sampled, withServerCpu } from '../lib.ts';

export const scenario: Scenario = {
  name: 'oauth-introspection',
  description:
    'POST /oauth/introspect (JWT access token, by its own confidential client, client_secret_post; active: true), concurrency 32, keep-alive; reference: GET /health/live on the same server.',
  async run(context: BenchContext) {
    const bench = await startOAuthBench();
    try {
      const { access_token } = await bench.userGrant();
      const body = form({
        // The client the token was issued to: introspection shows a token only to it (or to a service client
        // provisioned for the token's audience).
        client_id: bench.web.clientId,
        client_secret: bench.web.secret,
        token: access_token,
      });
      // The measured answer must be the full active one, not the cheap {active:false}.
      const answer = await request(`${bench.server.url}/oauth/introspect`, { method: 'POST', headers: FORM, body });
      const introspected = (await answer.body.json()) as { active?: boolean };
      if (introspected.active !== true) throw new Error('the benchmarked token does not introspect as active');
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
            { method: 'POST', path: '/oauth/introspect', headers: FORM, body, expectStatus: 200 },
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
          { name: 'POST /oauth/introspect', unit: 'req/s', samples: ours },
          { name: 'server CPU per GET /health/live (all threads)', unit: 'µs', samples: trivialCpu },
          { name: 'server CPU per POST /oauth/introspect (all threads)', unit: 'µs', samples: oursCpu },
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
