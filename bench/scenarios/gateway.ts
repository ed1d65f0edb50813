// The gateway's overhead: the same request (GET with a client-credentials bearer token, a small JSON answer) sent to
// the upstream directly and through the gateway, concurrency 32 on keep-alive connections, in alternating rounds.
// Targets: throughput through the gateway at least 0.8 of direct, and at most 1 ms added to the median latency.
// Upstream, gateway and load generator are three processes.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { newClientId, newResourceId } from '../../src/clients/ids.ts';
import { insertClient, insertResource } from '../../src/clients/store.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { makeApplication } from '../../test/helpers/oauth-fixtures.ts';
import { FORM, form } from '../helpers/oauth.ts';
import { startServer } from '../helpers/server.ts';
import { type BenchContext, median, type Scenario, sampled } from '../lib.ts';

const AUDIENCE = 'https://orders.bench.test/';
const PATH = '/app/api/orders?page=2';

async function startUpstream(): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../helpers/upstream-process.ts', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the upstream exited with ${code}`)));
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
  description: `GET ${PATH} with a client-credentials bearer token (scope and audience policy), to the upstream directly and through the gateway, concurrency 32, keep-alive; the upstream answers a small JSON body from its own process. Latency is the median of every request of a round; the concurrency-1 rows show the unloaded latency.`,
  async run(context: BenchContext) {
    const upstream = await startUpstream();
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
      const direct = `http://127.0.0.1:${upstream.port}`;
      for (const origin of [direct, server.url]) {
        const warm = await round(origin, headers, 32, context.warmUpMs);
        if (warm.errors > 0) throw new Error(`warm-up of ${origin}${PATH}: ${warm.errors} unexpected responses`);
      }
      const rates = { direct: [] as number[], gateway: [] as number[] };
      const p50s = { direct: [] as number[], gateway: [] as number[] };
      const idle = { direct: [] as number[], gateway: [] as number[] };
      const cpu: number[] = [];
      let errors = 0;
      await sampled(context.rounds, async () => {
        for (const [name, origin] of [
          ['direct', direct],
          ['gateway', server.url],
        ] as const) {
          const cpuBefore = server.cpuSeconds();
          const loaded = await round(origin, headers, 32, context.roundMs);
          if (name === 'gateway')
            cpu.push(((server.cpuSeconds() - cpuBefore) * 1e6) / ((loaded.perSecond * context.roundMs) / 1000));
          rates[name].push(loaded.perSecond);
          p50s[name].push(loaded.p50);
          errors += loaded.errors;
          const alone = await round(origin, headers, 1, Math.min(1000, context.roundMs));
          idle[name].push(alone.p50);
          errors += alone.errors;
        }
        return 0;
      });
      return {
        metrics: [
          { name: 'upstream directly', unit: 'req/s', samples: rates.direct },
          { name: 'through the gateway', unit: 'req/s', samples: rates.gateway },
          { name: 'p50 latency directly (concurrency 32)', unit: 'ms', samples: p50s.direct },
          { name: 'p50 latency through the gateway (concurrency 32)', unit: 'ms', samples: p50s.gateway },
          { name: 'p50 latency directly (concurrency 1)', unit: 'ms', samples: idle.direct },
          { name: 'p50 latency through the gateway (concurrency 1)', unit: 'ms', samples: idle.gateway },
          { name: 'gateway process CPU per proxied request (all threads)', unit: 'µs', samples: cpu },
        ],
        ratios: [
          {
            name: 'gateway / direct throughput',
            value: median(rates.gateway) / median(rates.direct),
            target: { atLeast: 0.8 },
          },
          {
            name: 'added p50 latency, concurrency 32 (ms)',
            value: median(p50s.gateway) - median(p50s.direct),
            target: { atMost: 1 },
          },
          { name: 'added p50 latency, concurrency 1 (ms)', value: median(idle.gateway) - median(idle.direct) },
        ],
        notes: [`Non-200 responses during the run: ${errors}.`],
      };
    } finally {
      await server.stop();
      upstream.child.kill('SIGTERM');
    }
  },
};
