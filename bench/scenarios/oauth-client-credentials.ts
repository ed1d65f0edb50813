// Client credentials (RS256 JWT) at concurrency 32 on keep-alive connections, against two references measured in
// the same run: the raw RS256 signing rate of a Node process doing nothing else, and oidc-provider configured the
// same way in a process of its own. Also the server process's RSS at idle and under load.
//
// The load comes through the lean client (lean-http.ts), for both servers: the raw-signing reference has no load
// generator, so every microsecond the generator spends on the same two CPUs counts against the server alone
// (undici took 45-100 µs per token here, the lean client 35-45). Its CPU per token is reported beside the server's.

import { FORM, form, formRequestsPerSecond, type OAuthBench, startOAuthBench } from '../helpers/oauth.ts';
import { startOidcProvider } from '../helpers/oidc-provider.ts';
import { startReferenceProcess } from '../helpers/reference.ts';
import { freshCompileCache, ISSUER, processTreeRssMegabytes } from '../helpers/server.ts';
import { type BenchContext, httpRequestsPerSecond, median, type Scenario, sampled, withServerCpu } from '../lib.ts';

const tokenLoad = (bench: OAuthBench, path: string, clientId: string, secret: string) => ({
  method: 'POST' as const,
  path,
  headers: FORM,
  body: form({
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: secret,
    scope: 'read',
    resource: bench.service.audience,
  }),
  expectStatus: 200,
});

type TokenLoad = ReturnType<typeof tokenLoad>;

const tokensPerSecond = (origin: string, load: TokenLoad, durationMs: number) =>
  formRequestsPerSecond(origin, load.path, load.body, 32, durationMs);

/** The unmeasured warm-up: its rate is dropped, not its failures. */
async function warmUpTokens(origin: string, load: TokenLoad, context: BenchContext) {
  const { errors } = await tokensPerSecond(origin, load, context.warmUpMs);
  if (errors > 0) throw new Error(`warm-up of POST ${load.path}: ${errors} unexpected responses`);
}

/** RSS of the server process after startup and one warm-up token request, left alone for a second. */
async function idleRss(bench: OAuthBench): Promise<number> {
  const warm = await httpRequestsPerSecond(
    bench.server.url,
    tokenLoad(bench, '/oauth/token', bench.service.clientId, bench.service.secret),
    1,
    1,
  );
  if (warm.errors > 0) throw new Error('the warm-up token request failed');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return bench.server.rssMegabytes();
}

export const scenario: Scenario = {
  name: 'oauth-client-credentials',
  description:
    'POST /oauth/token grant_type=client_credentials (RS256 JWT), concurrency 32, keep-alive; references: raw RS256 signing (jose) in a process doing nothing else, and oidc-provider (in-memory adapter, same configuration, its own process). Server, references and load generator are separate processes; the load generator is the lean keep-alive client for both servers.',
  async run(context: BenchContext) {
    // Idle RSS twice: the first start of an installation (empty compile cache: src/gatehouse.mjs), and a restart,
    // which reads the cache the first start wrote. A third server, with the default workers, is the one under load.
    // Both with server.workers = 1, so the process measured is the one serving (with more, the top process is a
    // supervisor that serves nothing; server-workers reports the whole node's RSS for one and two workers).
    const cache = freshCompileCache();
    const oneProcess = { settings: { server: { issuer: ISSUER, listen: '127.0.0.1:0', workers: 1 } } };
    const first = await startOAuthBench({ ...oneProcess, compileCacheDir: cache.dir });
    const coldIdleRss = await idleRss(first).finally(() => first.server.stop());
    const restarted = await startOAuthBench({ ...oneProcess, compileCacheDir: cache.dir });
    const warmIdleRss = await idleRss(restarted).finally(() => restarted.server.stop());
    const bench = await startOAuthBench({ compileCacheDir: cache.dir });
    const pem = bench.server.secrets.oidcSigningKey;
    const other = await startOidcProvider(pem, bench.service.audience);
    const reference = await startReferenceProcess();
    try {
      const raw: number[] = [];
      const ours: number[] = [];
      const theirs: number[] = [];
      const loadRss: number[] = [];
      const cpu: number[] = [];
      const loadCpu: number[] = [];
      let errors = 0;
      const gatehouseLoad = tokenLoad(bench, '/oauth/token', bench.service.clientId, bench.service.secret);
      const oidcProviderLoad = tokenLoad(bench, '/token', other.clientId, other.secret);
      await reference.measure({ kind: 'rs256', pem, durationMs: context.warmUpMs });
      await warmUpTokens(bench.server.url, gatehouseLoad, context);
      await warmUpTokens(other.url, oidcProviderLoad, context);
      await sampled(context.rounds, async () => {
        raw.push(await reference.measure({ kind: 'rs256', pem, durationMs: context.roundMs }));
        const load = process.cpuUsage();
        const start = performance.now();
        const measured = await withServerCpu(bench.server, () =>
          tokensPerSecond(bench.server.url, gatehouseLoad, context.roundMs),
        );
        const { user, system } = process.cpuUsage(load);
        loadCpu.push((user + system) / (measured.perSecond * ((performance.now() - start) / 1000)));
        cpu.push(measured.cpuMicrosPerRequest);
        loadRss.push(processTreeRssMegabytes(bench.server.pid));
        ours.push(measured.perSecond);
        errors += measured.errors;
        const compared = await tokensPerSecond(other.url, oidcProviderLoad, context.roundMs);
        theirs.push(compared.perSecond);
        errors += compared.errors;
        return 0;
      });
      return {
        metrics: [
          { name: 'raw RS256 signing (reference)', unit: 'sig/s', samples: raw },
          { name: 'Gatehouse client_credentials', unit: 'req/s', samples: ours },
          { name: 'oidc-provider client_credentials', unit: 'req/s', samples: theirs },
          { name: 'Gatehouse server CPU per token (all threads, signing included)', unit: 'µs', samples: cpu },
          { name: 'load generator CPU per Gatehouse token (the bench process)', unit: 'µs', samples: loadCpu },
          {
            name: 'RSS at idle, first start (server.workers = 1: one process serving, empty compile cache)',
            unit: 'MB',
            samples: [coldIdleRss],
          },
          {
            name: 'RSS at idle, restart (server.workers = 1, compile cache written by the first start)',
            unit: 'MB',
            samples: [warmIdleRss],
          },
          {
            name: 'RSS under load (the node: supervisor and workers, end of each round)',
            unit: 'MB',
            samples: loadRss,
          },
        ],
        ratios: [
          { name: 'client_credentials / raw signing', value: median(ours) / median(raw), target: { atLeast: 0.75 } },
          { name: 'Gatehouse / oidc-provider', value: median(ours) / median(theirs), target: { atLeast: 1 } },
          { name: 'idle RSS at restart (MB)', value: warmIdleRss, target: { atMost: 100 } },
        ],
        notes: [`Non-200 responses during the run: ${errors}.`],
      };
    } finally {
      await reference.stop();
      await other.stop();
      await bench.server.stop();
      cache.remove();
    }
  },
};
