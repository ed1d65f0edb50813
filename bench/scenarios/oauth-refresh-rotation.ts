// Refresh token rotation at concurrency 32: 32 independent token families, each worker presenting the token its
// previous response returned, so every request commits a rotation. Reference: raw RS256 signing rate divided by the
// signatures per response (1: a refresh response carries one access token and no ID token).

import { chainedRequestsPerSecond, form, startOAuthBench } from '../helpers/oauth.ts';
import { startReferenceProcess } from '../helpers/reference.ts';
import { type BenchContext, median, type Scenario, sampled, withServerCpu } from '../lib.ts';

const SIGNATURES_PER_RESPONSE = 1;

export const scenario: Scenario = {
  name: 'oauth-refresh-rotation',
  description:
    'POST /oauth/token grant_type=refresh_token, 32 token families rotated concurrently on keep-alive connections; reference: raw RS256 signing (jose, in a process doing nothing else) / signatures per response.',
  async run(context: BenchContext) {
    const bench = await startOAuthBench();
    const reference = await startReferenceProcess();
    try {
      let chains = await Promise.all(Array.from({ length: 32 }, async () => (await bench.userGrant()).refresh_token));
      // Each worker presents the refresh token its previous response returned.
      const rotateFor = async (durationMs: number) => {
        const result = await chainedRequestsPerSecond(
          bench.server.url,
          chains,
          (token) => ({
            path: '/oauth/token',
            body: form({
              grant_type: 'refresh_token',
              client_id: bench.web.clientId,
              client_secret: bench.web.secret,
              refresh_token: token,
            }),
          }),
          (json) => json.refresh_token as string,
          durationMs,
        );
        chains = result.chains;
        return result;
      };
      const signing = (durationMs: number) =>
        reference.measure({ kind: 'rs256', pem: bench.server.secrets.oidcSigningKey, durationMs });
      const raw: number[] = [];
      const ours: number[] = [];
      const cpu: number[] = [];
      let errors = (await rotateFor(context.warmUpMs)).errors;
      await signing(context.warmUpMs);
      await sampled(context.rounds, async () => {
        raw.push(await signing(context.roundMs));
        const result = await withServerCpu(bench.server, () => rotateFor(context.roundMs));
        cpu.push(result.cpuMicrosPerRequest);
        errors += result.errors;
        ours.push(result.perSecond);
        return 0;
      });
      const [rotations] = await bench.server
        .sql`select count(*)::int as n from oauth_refresh_tokens where rotated_at is not null`;
      return {
        metrics: [
          { name: 'raw RS256 signing (reference)', unit: 'sig/s', samples: raw },
          { name: 'refresh rotations', unit: 'req/s', samples: ours },
          { name: 'server CPU per rotation (all threads, signing included)', unit: 'µs', samples: cpu },
        ],
        ratios: [
          {
            name: 'refresh / (raw signing / signatures per response)',
            value: median(ours) / (median(raw) / SIGNATURES_PER_RESPONSE),
            target: { atLeast: 0.5 },
          },
        ],
        notes: [`Rotations committed in the database: ${rotations?.n}; non-200 responses: ${errors}.`],
      };
    } finally {
      await reference.stop();
      await bench.server.stop();
    }
  },
};
