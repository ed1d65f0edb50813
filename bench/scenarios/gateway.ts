// The gateway's overhead: the same request (GET with a client-credentials bearer token, a small JSON answer) sent to
// the upstream directly and through the gateway, concurrency 32 on keep-alive connections, in alternating rounds.
// Beside them, in the same rounds: the two Node references (a bare node:http + undici proxy, and Fastify with
// reply-from alone) that show what any Node proxy and the framework cost; and the two native-proxy deployments users
// choose instead, nginx authorizing with a few lines of Lua that call introspection and cache the answer for 30 s,
// and nginx asking Gatehouse's forward-auth endpoint with docs/gateway.md's configuration (answers cached for
// gateway.forward_auth_cache_seconds). The decision endpoint and introspection are also loaded directly, uncached,
// to compare what one decision costs Gatehouse, and beside them a bare node:http server answering the decision's
// own 200 header for header (bench/helpers/bare-answer-process.ts): what any Node server pays for the question. CPU per request is read from /proc for every process in each chain.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { newClientId, newResourceId } from '../../src/clients/ids.ts';
import { insertClient, insertResource } from '../../src/clients/store.ts';
import { clientSecretHmac, newClientSecret } from '../../src/oauth/client-secret.ts';
import { startNginx, startNginxWith } from '../../test/helpers/forward-auth-proxies.ts';
import { freePort } from '../../test/helpers/haproxy.ts';
import { makeApplication } from '../../test/helpers/oauth-fixtures.ts';
import { luaIntrospectionConfig } from '../helpers/nginx-lua-introspection.ts';
import { FORM, form } from '../helpers/oauth.ts';
import { ISSUER, processCpuSeconds, processTreeCpuSeconds, startServer } from '../helpers/server.ts';
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

interface Load {
  origin: string;
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Requests per second and the median latency (ms) of one round of `concurrency` workers on keep-alive connections. */
async function round(load: Load, concurrency: number, durationMs: number) {
  const pool = new Pool(load.origin, { connections: concurrency, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + durationMs;
  const start = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < deadline) {
          const sent = performance.now();
          const response = await pool.request({
            method: load.method,
            path: load.path,
            headers: load.headers,
            body: load.body ?? null,
          });
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
  description: `GET ${PATH} with a client-credentials bearer token (scope and audience policy), concurrency 32, keep-alive; the upstream answers a small JSON body from its own process. Paths, measured in the same alternating rounds: directly to the upstream; through a bare Node proxy (node:http and an undici pool, nothing else) and Fastify with reply-from alone (what any Node proxy and the framework cost); through the built-in gateway (one worker, like every reference one process); through nginx (one worker) authorizing with Lua that calls Gatehouse's introspection and keeps each answer 30 s; through nginx asking Gatehouse's forward-auth endpoint with the configuration of docs/gateway.md (answers kept for gateway.forward_auth_cache_seconds, 5 s). Two more loads go to Gatehouse alone, uncached by any proxy: the forward-auth question for the same request, and POST /oauth/introspect for the same token (client_secret_post); and, as their floor, a bare node:http server answering the decision's own 200 with the same header lines and no checks. CPU is per request, from /proc (user + system, every thread), for every process of each chain: the load generator, each proxy (nginx's master and worker; Gatehouse's supervisor and workers), and the upstream. On a saturated machine throughput follows the chain's total. Latency is the median of every request of a round; the concurrency-1 rows show the unloaded latency.`,
  async run(context: BenchContext) {
    const upstream = await startHelper('upstream-process.ts');
    const bare = await startHelper('bare-proxy-process.ts', String(upstream.port));
    const framework = await startHelper('fastify-proxy-process.ts', String(upstream.port));
    /** Started once the decision's answer is known (its headers are the floor's). */
    let floor: Awaited<ReturnType<typeof startHelper>> | undefined;
    const server = await startServer({
      settings: {
        // One worker, as every reference is one process (nginx runs one worker): CPU per request compares like with
        // like. More workers spread the same connections over more event loops, each batching fewer requests per
        // wake-up, which costs CPU per request on a busy machine whatever the code does.
        server: { issuer: ISSUER, listen: '127.0.0.1:0', workers: 1 },
        gateway: { enabled: true, route_prefix: '/app', upstream_port: upstream.port, forward_auth: true },
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
    const stops: (() => Promise<void> | void)[] = [];
    /** A directory of the nginx references' own files, removed at the end. */
    const scratch = (prefix: string) => {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      stops.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    };
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
      const question = { ...headers, 'x-original-method': 'GET', 'x-original-uri': PATH };
      // The decision's own allowed answer, header for header, for the floor below (Node adds date and connection).
      const decided = await fetch(`${server.url}/auth/forward`, { headers: question });
      if (decided.status !== 200) throw new Error(`the forward-auth question was answered ${decided.status}`);
      const answered = Object.fromEntries(
        [...decided.headers].filter(([name]) => !['date', 'connection', 'keep-alive'].includes(name)),
      );
      floor = await startHelper('bare-answer-process.ts', JSON.stringify(answered));
      const gatehouseHost = new URL(server.url).host;
      const upstreamHost = `127.0.0.1:${upstream.port}`;
      const luaPort = await freePort();
      const lua = await startNginxWith(
        scratch('gatehouse-bench-nginx-lua-'),
        luaPort,
        luaIntrospectionConfig({
          port: luaPort,
          gatehouse: gatehouseHost,
          upstream: upstreamHost,
          clientId: client.id,
          clientSecret: secret,
          scope: 'read',
          audience: AUDIENCE,
        }),
        { lua: true },
      );
      stops.push(() => lua.stop());
      const forwardAuth = await startNginx({
        gatehouse: gatehouseHost,
        upstream: upstreamHost,
        dir: scratch('gatehouse-bench-nginx-fa-'),
      });
      stops.push(() => forwardAuth.stop());

      const gatehouse = { name: 'Gatehouse', cpu: () => server.cpuSeconds() };
      const get = (origin: string): Load => ({ origin, method: 'GET', path: PATH, headers });
      // Each way to the upstream, with the processes between the load generator and the upstream.
      const paths = [
        { name: 'direct', label: 'directly', load: get(`http://${upstreamHost}`), chain: [] },
        {
          name: 'bare',
          label: 'through the bare Node proxy',
          load: get(`http://127.0.0.1:${bare.port}`),
          chain: [{ name: 'bare Node proxy', cpu: () => processCpuSeconds(bare.child.pid as number) }],
        },
        {
          name: 'framework',
          label: 'through Fastify + reply-from alone',
          load: get(`http://127.0.0.1:${framework.port}`),
          chain: [{ name: 'Fastify + reply-from', cpu: () => processCpuSeconds(framework.child.pid as number) }],
        },
        { name: 'gateway', label: 'through the gateway', load: get(server.url), chain: [gatehouse] },
        {
          name: 'nginxLua',
          label: 'through nginx + Lua cached introspection',
          load: get(lua.url),
          chain: [{ name: 'nginx', cpu: () => processTreeCpuSeconds(lua.pid) }, gatehouse],
        },
        {
          name: 'nginxForwardAuth',
          label: 'through nginx + Gatehouse forward auth',
          load: get(forwardAuth.url),
          chain: [{ name: 'nginx', cpu: () => processTreeCpuSeconds(forwardAuth.pid) }, gatehouse],
        },
        {
          name: 'decision',
          label: 'forward-auth decision, uncached (Gatehouse alone)',
          load: {
            origin: server.url,
            method: 'GET',
            path: '/auth/forward',
            headers: question,
          },
          chain: [gatehouse],
        },
        {
          name: 'decisionFloor',
          label: "a bare node:http server answering the decision's 200, same headers, no checks",
          load: { origin: `http://127.0.0.1:${floor.port}`, method: 'GET', path: '/auth/forward', headers: question },
          chain: [{ name: 'bare node:http answer', cpu: () => processCpuSeconds(floor?.child.pid as number) }],
        },
        {
          name: 'introspection',
          label: 'POST /oauth/introspect (Gatehouse alone)',
          load: {
            origin: server.url,
            method: 'POST',
            path: '/oauth/introspect',
            headers: FORM,
            body: form({ client_id: client.id, client_secret: secret, token }),
          },
          chain: [gatehouse],
        },
      ] as const satisfies readonly {
        name: string;
        label: string;
        load: Load;
        chain: readonly { name: string; cpu: () => number }[];
      }[];
      type PathName = (typeof paths)[number]['name'];
      const upstreamPid = upstream.child.pid as number;
      for (const { load } of paths) {
        const warm = await round(load, 32, context.warmUpMs);
        if (warm.errors > 0)
          throw new Error(`warm-up of ${load.origin}${load.path}: ${warm.errors} unexpected responses`);
      }
      const perPath = () =>
        Object.fromEntries(paths.map((p) => [p.name, [] as number[]])) as Record<PathName, number[]>;
      const rates = perPath();
      const p50s = perPath();
      const idle = perPath();
      const upstreamCpu = perPath();
      const loadCpu = perPath();
      /** CPU per request of each process of each chain, by "path/process". */
      const chainCpu = new Map<string, number[]>();
      /** The proxy side of each path: every process but the load generator and the upstream. */
      const proxyCpu = perPath();
      let errors = 0;
      await sampled(context.rounds, async () => {
        for (const way of paths) {
          const before = way.chain.map((p) => p.cpu());
          const upstreamBefore = processCpuSeconds(upstreamPid);
          const loadBefore = process.cpuUsage();
          const loaded = await round(way.load, 32, context.roundMs);
          const requests = (loaded.perSecond * context.roundMs) / 1000;
          const load = process.cpuUsage(loadBefore);
          let proxySide = 0;
          way.chain.forEach((member, i) => {
            const perRequest = ((member.cpu() - (before[i] as number)) * 1e6) / requests;
            proxySide += perRequest;
            const key = `${way.name}/${member.name}`;
            chainCpu.set(key, [...(chainCpu.get(key) ?? []), perRequest]);
          });
          proxyCpu[way.name].push(proxySide);
          upstreamCpu[way.name].push(((processCpuSeconds(upstreamPid) - upstreamBefore) * 1e6) / requests);
          loadCpu[way.name].push((load.user + load.system) / requests);
          rates[way.name].push(loaded.perSecond);
          p50s[way.name].push(loaded.p50);
          errors += loaded.errors;
          const alone = await round(way.load, 1, Math.min(1000, context.roundMs));
          idle[way.name].push(alone.p50);
          errors += alone.errors;
        }
        return 0;
      });
      const totalCpu = (name: PathName) => median(proxyCpu[name]) + median(upstreamCpu[name]) + median(loadCpu[name]);
      const each = (f: (path: (typeof paths)[number]) => { name: string; unit: string; samples: number[] }) =>
        paths.map(f);
      const ratio = (a: number[], b: number[]) => median(a) / median(b);
      return {
        metrics: [
          ...each((p) => ({ name: `throughput ${p.label}`, unit: 'req/s', samples: rates[p.name] })),
          ...each((p) => ({ name: `p50 latency ${p.label} (concurrency 32)`, unit: 'ms', samples: p50s[p.name] })),
          ...each((p) => ({ name: `p50 latency ${p.label} (concurrency 1)`, unit: 'ms', samples: idle[p.name] })),
          ...paths.flatMap((p) =>
            p.chain.map((member) => ({
              name: `${member.name} CPU per request, ${p.label}${member === gatehouse ? ' (supervisor and workers, all threads)' : ''}`,
              unit: 'µs',
              samples: chainCpu.get(`${p.name}/${member.name}`) ?? [],
            })),
          ),
          ...each((p) => ({ name: `upstream CPU per request, ${p.label}`, unit: 'µs', samples: upstreamCpu[p.name] })),
          ...each((p) => ({
            name: `load generator CPU per request, ${p.label}`,
            unit: 'µs',
            samples: loadCpu[p.name],
          })),
          ...each((p) => ({
            name: `proxy-side CPU per request (every process but load generator and upstream), ${p.label}`,
            unit: 'µs',
            samples: proxyCpu[p.name],
          })),
        ],
        ratios: [
          { name: 'gateway / direct throughput', value: ratio(rates.gateway, rates.direct), target: { atLeast: 0.8 } },
          { name: 'bare Node proxy / direct throughput', value: ratio(rates.bare, rates.direct) },
          {
            name: 'added p50 latency, concurrency 32 (ms)',
            value: median(p50s.gateway) - median(p50s.direct),
            target: { atMost: 1 },
          },
          {
            name: 'added p50 latency, concurrency 1 (ms)',
            value: median(idle.gateway) - median(idle.direct),
            target: { atMost: 0.25 },
          },
          {
            name: 'gateway CPU per request / bare Node proxy CPU per request',
            value: ratio(proxyCpu.gateway, proxyCpu.bare),
            target: { atMost: 1.2 },
          },
          {
            name: 'nginx + forward auth / nginx + Lua cached introspection throughput',
            value: ratio(rates.nginxForwardAuth, rates.nginxLua),
            target: { atLeast: 0.9 },
          },
          {
            name: 'nginx + forward auth / nginx + Lua cached introspection, proxy-side CPU per request (nginx + Gatehouse)',
            value: ratio(proxyCpu.nginxForwardAuth, proxyCpu.nginxLua),
            target: { atMost: 1.2 },
          },
          {
            name: 'uncached forward-auth decision / introspection, Gatehouse CPU per request',
            value: ratio(proxyCpu.decision, proxyCpu.introspection),
            target: { atMost: 0.5 },
          },
          {
            // No Node server can answer the question for less than this: the decision's target is measured against it.
            name: "bare node:http answer with the decision's headers / introspection, CPU per request (the floor of the ratio above)",
            value: ratio(proxyCpu.decisionFloor, proxyCpu.introspection),
          },
          {
            name: 'uncached forward-auth decision / bare node:http answer, CPU per request (what deciding adds)',
            value: ratio(proxyCpu.decision, proxyCpu.decisionFloor),
          },
          { name: 'gateway / nginx + forward auth throughput', value: ratio(rates.gateway, rates.nginxForwardAuth) },
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
      for (const stop of stops.reverse()) await stop();
      await server.stop();
      upstream.child.kill('SIGTERM');
      bare.child.kill('SIGTERM');
      framework.child.kill('SIGTERM');
      floor?.child.kill('SIGTERM');
    }
  },
};
