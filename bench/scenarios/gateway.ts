// The gateway's overhead: the same request (GET with a client-credentials bearer token, a small JSON answer) sent to
// the upstream directly and through the gateway, concurrency 32 on keep-alive connections, in alternating rounds.
// Targets: throughput through the gateway at least 0.8 of direct, and at most 1 ms added to the median latency.
// Upstream, gateway and load generator are separate processes, as are the two reference proxies (a bare Node proxy,
// and Fastify with reply-from alone) that show how much of the gateway's cost any Node proxy or the framework pays.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { newClientId, newResourceId } from '../../src/clients/ids.ts';
import { insertClient, insertResource } from '../../src/clients/store.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { makeApplication } from '../../test/helpers/oauth-fixtures.ts';
import { FORM, form } from '../helpers/oauth.ts';
import { processCpuSeconds, startServer } from '../helpers/server.ts';
import { type BenchContext, median, type Scenario, sampled } from '../lib.ts';

const AUDIENCE = 'https://orders.bench.test/';
const PATH = '/app/api/orders?page=2';

/** A helper process of bench/helpers/ that prints its port on stdout once it listens. */
async function startHelper(script: string, ...args: string[]): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(`../helpers/${script}`, import.meta.url)), ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { port, child };
}

/** Requests per second and the median latency (ms) of one round of `concurrency` workers on keep-alive connections. */
async function round(origin: string, headers: Record<string, string>, concurrency: number, durationMs: number) {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + durationMs;
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          const sent = performance.now();
          const response = await pool.request({ method: 'GET', path: PATH, headers });
          await response.body.dump();
          latencies.push(performance.now() - sent);
          if (response.statusCode !== 200) errors += 1;
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return { perSecond: latencies.length / ((performance.now() - start) / 1000), p50: median(latencies), errors };
}

export const scenario: Scenario = {
  name: 'gateway',
  description: `GET ${PATH} with a client-credentials bearer token (scope and audience policy), to the upstream directly and through the gateway, concurrency 32, keep-alive; the upstream answers a small JSON body from its own process. Two references run beside them in the same rounds: a bare Node proxy (node:http and an undici pool, nothing else) and Fastify with reply-from alone, so the report shows what any Node proxy costs, what the framework adds and what Gatehouse adds. CPU is per request, from /proc, for each process: the proxy, the upstream and the load generator; on a saturated machine throughput follows their sum, so direct CPU over proxied CPU is the most the throughput ratio can be. Latency is the median of every request of a round; the concurrency-1 rows show the unloaded latency.`,
  async run(context: BenchContext) {
    const upstream = await startHelper('upstream-process.ts');
    const bare = await startHelper('bare-proxy-process.ts', String(upstream.port));
    const framework = await startHelper('fastify-proxy-process.ts', String(upstream.port));
    const server = await startServer({
      settings: {
        gateway: { enabled: true, route_prefix: '/app', upstream_port: upstream.port },
        auth: {
          enabled: true,
          organization_id: 'acme',
          protected_route_prefix: '/app/api',
          route_policies: [
            { path_prefix: '/app/api', methods: ['GET'], required_scope: 'read', required_audience: AUDIENCE },
          ],
        },
      },
      beforeStart: async (sql) => {
        await sql`insert into organizations (id, name) values ('acme', 'Acme')`;
      },
    });
    try {
      await insertResource(server.sql, {
        id: newResourceId(),
        audience: AUDIENCE,
        name: 'Orders',
        scopes: ['read'],
        createdAt: new Date(),
      });
      const secret = newClientSecret();
      const client = await insertClient(server.sql, {
        id: newClientId(),
        applicationId: (await makeApplication(server.sql)).id,
        name: 'Reporting job',
        kind: 'service',
        secretHmac: clientSecretHmac(server.secrets.clientSecret, secret),
        redirectUris: [],
        postLogoutRedirectUris: [],
        scopes: ['read'],
        audiences: [AUDIENCE],
        tokenExchangeAudiences: [],
        deviceAuthorizationGrant: false,
        firstParty: true,
        tokenEndpointAuthMethod: 'client_secret_post',
        jwks: null,
        jwksUri: null,
        dpopBoundAccessTokens: false,
        requirePushedAuthorizationRequests: false,
        backchannelLogoutUri: null,
        backchannelLogoutSessionRequired: false,
        createdAt: new Date(),
      });
      const tokenResponse = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: FORM,
        body: form({
          grant_type: 'client_credentials',
          client_id: client.id,
          client_secret: secret,
          scope: 'read',
          resource: AUDIENCE,
        }),
      });
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
      const headers = { authorization: `Bearer ${token}` };
      // Four ways to the same upstream: directly, through the bare Node proxy (the floor any Node proxy pays), through
      // Fastify and reply-from alone (the framework's share), and through the gateway. The proxy's CPU is its process
      // tree's (the gateway: supervisor and workers).
      const paths = [
        { name: 'direct', origin: `http://127.0.0.1:${upstream.port}`, proxyCpu: () => 0 },
        { name: 'bare', origin: `http://127.0.0.1:${bare.port}`, proxyCpu: () => processCpuSeconds(bareProxyPid) },
        {
          name: 'framework',
          origin: `http://127.0.0.1:${framework.port}`,
          proxyCpu: () => processCpuSeconds(frameworkPid),
        },
        { name: 'gateway', origin: server.url, proxyCpu: () => server.cpuSeconds() },
      ] as const;
      const bareProxyPid = bare.child.pid as number;
      const frameworkPid = framework.child.pid as number;
      const upstreamPid = upstream.child.pid as number;
      for (const { origin } of paths) {
        const warm = await round(origin, headers, 32, context.warmUpMs);
        if (warm.errors > 0) throw new Error(`warm-up of ${origin}${PATH}: ${warm.errors} unexpected responses`);
      }
      type PathName = (typeof paths)[number]['name'];
      const perPath = () => ({
        direct: [] as number[],
        bare: [] as number[],
        framework: [] as number[],
        gateway: [] as number[],
      });
      const rates = perPath();
      const p50s = perPath();
      const idle = perPath();
      // On a machine the load saturates, throughput follows the CPU every process spends per request, so the
      // proxy's, the upstream's and the load generator's shares are each measured per request.
      const proxyCpu = perPath();
      const upstreamCpu = perPath();
      const loadCpu = perPath();
      const totalCpu = (name: PathName) => median(proxyCpu[name]) + median(upstreamCpu[name]) + median(loadCpu[name]);
      let errors = 0;
      await sampled(context.rounds, async () => {
        for (const path of paths) {
          const proxyBefore = path.proxyCpu();
          const upstreamBefore = processCpuSeconds(upstreamPid);
          const loadBefore = process.cpuUsage();
          const loaded = await round(path.origin, headers, 32, context.roundMs);
          const requests = (loaded.perSecond * context.roundMs) / 1000;
          const load = process.cpuUsage(loadBefore);
          proxyCpu[path.name].push(((path.proxyCpu() - proxyBefore) * 1e6) / requests);
          upstreamCpu[path.name].push(((processCpuSeconds(upstreamPid) - upstreamBefore) * 1e6) / requests);
          loadCpu[path.name].push((load.user + load.system) / requests);
          rates[path.name].push(loaded.perSecond);
          p50s[path.name].push(loaded.p50);
          errors += loaded.errors;
          const alone = await round(path.origin, headers, 1, Math.min(1000, context.roundMs));
          idle[path.name].push(alone.p50);
          errors += alone.errors;
        }
        return 0;
      });
      const label = {
        direct: 'directly',
        bare: 'through the bare Node proxy',
        framework: 'through Fastify + reply-from alone',
        gateway: 'through the gateway',
      };
      const each = (f: (name: PathName) => { name: string; unit: string; samples: number[] }) =>
        paths.map(({ name }) => f(name));
      return {
        metrics: [
          ...each((n) => ({ name: `throughput ${label[n]}`, unit: 'req/s', samples: rates[n] })),
          ...each((n) => ({ name: `p50 latency ${label[n]} (concurrency 32)`, unit: 'ms', samples: p50s[n] })),
          ...each((n) => ({ name: `p50 latency ${label[n]} (concurrency 1)`, unit: 'ms', samples: idle[n] })),
          {
            name: 'gateway CPU per request (supervisor and workers, all threads)',
            unit: 'µs',
            samples: proxyCpu.gateway,
          },
          { name: 'bare Node proxy CPU per request', unit: 'µs', samples: proxyCpu.bare },
          { name: 'Fastify + reply-from alone, CPU per request', unit: 'µs', samples: proxyCpu.framework },
          ...each((n) => ({ name: `upstream CPU per request, ${label[n]}`, unit: 'µs', samples: upstreamCpu[n] })),
          ...each((n) => ({ name: `load generator CPU per request, ${label[n]}`, unit: 'µs', samples: loadCpu[n] })),
        ],
        ratios: [
          {
            name: 'gateway / direct throughput',
            value: median(rates.gateway) / median(rates.direct),
            target: { atLeast: 0.8 },
          },
          { name: 'bare Node proxy / direct throughput', value: median(rates.bare) / median(rates.direct) },
          {
            name: 'added p50 latency, concurrency 32 (ms)',
            value: median(p50s.gateway) - median(p50s.direct),
            target: { atMost: 1 },
          },
          { name: 'added p50 latency, concurrency 1 (ms)', value: median(idle.gateway) - median(idle.direct) },
          {
            // What the throughput ratio can be at most while the cores are the limit: the CPU (all processes) a
            // direct request costs over what a proxied one costs.
            name: 'CPU-bound ceiling of gateway / direct throughput (direct CPU per request / gateway path CPU)',
            value: totalCpu('direct') / totalCpu('gateway'),
          },
          {
            name: 'CPU-bound ceiling of any Node proxy / direct throughput (direct / bare proxy path CPU)',
            value: totalCpu('direct') / totalCpu('bare'),
          },
        ],
        notes: [`Non-200 responses during the run: ${errors}.`],
      };
    } finally {
      await server.stop();
      upstream.child.kill('SIGTERM');
      bare.child.kill('SIGTERM');
      framework.child.kill('SIGTERM');
    }
  },
};
