// `npm run soak [-- --minutes 30]`: mixed load at half of the measured capacity for a long time, to show that nothing
// grows that should not: the node's RSS (supervisor and workers), its responsiveness (the p99 latency of
// GET /health/live under the load, which follows event-loop delay), database connections and table sizes.
// Not a test and not in CI. Writes bench/SOAK.md.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { loadSecrets } from '../src/crypto/secret-files.ts';
import type { TestApp } from '../test/helpers/app.ts';
import { makeConfig } from '../test/helpers/config.ts';
import { startGatehouse, writeNodeConfig } from '../test/helpers/gatehouse-process.ts';
import { makeClient, makeIdentity, makeServiceClient, makeSession } from '../test/helpers/oauth-fixtures.ts';
import { authorizeUrl, pkcePair } from '../test/helpers/oauth-flow.ts';
import { benchDatabase } from './lib.ts';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '30' } } });
const minutes = Number(values.minutes);
const SAMPLES = 20;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const TABLES = ['oauth_refresh_tokens', 'oauth_authorization_codes', 'login_transactions', 'audit_events', 'sessions'];

if (!process.env.DATABASE_URL) {
  process.stderr.write('Set DATABASE_URL to a PostgreSQL maintenance database\n');
  process.exit(64);
}

/** RSS of a process and all its descendants (the supervisor and its workers), from /proc. */
function treeRssMegabytes(root: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  let kb = 0;
  const visit = (pid: number) => {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {}
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(root);
  return kb / 1024;
}

const database = await benchDatabase();
const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-soak-'));
const secretsDir = path.join(dir, 'secrets');
const configFile = writeNodeConfig({ dir, secretsDir, workers: 'auto', poolMax: 10 });
const node = await startGatehouse({ configFile, databaseUrl: database.url });
const secrets = loadSecrets(secretsDir);
const { sql } = database;
try {
  const app = { sql, config: makeConfig(), clock: { now: () => new Date() } } as unknown as TestApp;
  const service = await makeServiceClient(sql, secrets.clientSecret);
  const web = await makeClient(sql, secrets.clientSecret);
  const cookies: string[] = [];
  for (let i = 0; i < 64; i += 1) cookies.push((await makeSession(app, await makeIdentity(sql))).cookie);
  const post = async (pathname: string, body: Record<string, string>) => {
    const answer = await request(`${node.url}${pathname}`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams(body).toString(),
    });
    const text = await answer.body.text();
    if (answer.statusCode !== 200) throw new Error(`${pathname} answered ${answer.statusCode}: ${text}`);
    return JSON.parse(text) as Record<string, string>;
  };
  /** A code flow for one of the sessions: authorize, redeem; returns the tokens. */
  const codeFlow = async (cookie: string) => {
    const { verifier, challenge } = pkcePair();
    const authorized = await request(`${node.url}${authorizeUrl({ client: web.client, challenge })}`, {
      headers: { cookie },
    });
    await authorized.body.dump();
    const code = new URL(String(authorized.headers.location)).searchParams.get('code') as string;
    return await post('/oauth/token', {
      grant_type: 'authorization_code',
      client_id: web.client.id,
      client_secret: web.secret as string,
      code,
      redirect_uri: web.client.redirectUris[0] as string,
      code_verifier: verifier,
    });
  };
  // Each family is used by one unit at a time (a refresh token presented twice would revoke it, as designed).
  const free = await Promise.all(cookies.map(async (cookie) => ({ cookie, tokens: await codeFlow(cookie) })));
  let turn = 0;
  // One unit of the mix: a code flow, two refreshes, a client_credentials token, two introspections, a login start.
  const unit = async () => {
    turn += 1;
    const family = free.pop();
    if (family) {
      family.tokens = await post('/oauth/token', {
        grant_type: 'refresh_token',
        client_id: web.client.id,
        client_secret: web.secret as string,
        refresh_token: family.tokens.refresh_token as string,
      });
      if (turn % 4 === 0) await codeFlow(family.cookie);
      free.push(family);
    }
    const issued = await post('/oauth/token', {
      grant_type: 'client_credentials',
      client_id: service.client.id,
      client_secret: service.secret,
      scope: 'read',
      resource: service.resource.audience,
    });
    await post('/oauth/introspect', {
      client_id: service.client.id,
      client_secret: service.secret,
      token: issued.access_token as string,
    });
    const login = await request(`${node.url}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:8080' },
      body: JSON.stringify({ subject: `soak${turn}@example.test` }),
    });
    await login.body.dump();
  };

  // Capacity: units per second at concurrency 16 for 10 s.
  const probeUntil = Date.now() + 10_000;
  let probed = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < probeUntil) {
        await unit();
        probed += 1;
      }
    }),
  );
  const capacity = probed / 10;
  const rate = capacity / 2;
  process.stderr.write(`soak: capacity ${capacity.toFixed(1)} units/s; running ${minutes} min at ${rate.toFixed(1)}\n`);

  // Table sizes are only flat where dead rows are reclaimed. A server with autovacuum off (some development and CI
  // setups) would show every delete as growth, so the soak vacuums the measured tables before each sample instead.
  const [{ autovacuum } = { autovacuum: 'on' }] = await sql<{ autovacuum: string }[]>`show autovacuum`;
  const vacuumsItself = autovacuum !== 'on';

  const endAt = Date.now() + minutes * 60_000;
  const sampleEveryMs = (minutes * 60_000) / SAMPLES;
  const samples: string[] = [];
  let errors = 0;
  let done = 0;
  const pacer = (async () => {
    const inFlight = new Set<Promise<void>>();
    const started = Date.now();
    for (let launched = 0; Date.now() < endAt; launched += 1) {
      const due = started + launched * (1000 / rate);
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const job: Promise<void> = unit()
        .then(() => {
          done += 1;
        })
        .catch(() => {
          errors += 1;
        })
        .finally(() => inFlight.delete(job));
      inFlight.add(job);
      if (inFlight.size >= 64) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  })();

  const latencies: number[] = [];
  const probe = setInterval(async () => {
    const t0 = performance.now();
    const answer = await request(`${node.url}/health/live`);
    await answer.body.dump();
    latencies.push(performance.now() - t0);
  }, 100);
  for (let i = 1; i <= SAMPLES && Date.now() < endAt + 1000; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, sampleEveryMs));
    const sorted = latencies.splice(0).sort((a, b) => a - b);
    const p99 = sorted[Math.floor(sorted.length * 0.99)] ?? Number.NaN;
    const [connections] = await sql<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database()`;
    if (vacuumsItself) await sql.unsafe(`vacuum ${TABLES.join(', ')}`);
    const [refreshRows] = await sql<{ live: number; rotated: number }[]>`
      select count(*) filter (where rotated_at is null)::int as live, count(*) filter (where rotated_at is not null)::int as rotated
      from oauth_refresh_tokens`;
    const sizes = await Promise.all(
      TABLES.map(async (table) => {
        const [row] = await sql<{ kb: number }[]>`select (pg_total_relation_size(${table}) / 1024)::int as kb`;
        return row?.kb ?? 0;
      }),
    );
    samples.push(
      `| ${((i * sampleEveryMs) / 60_000).toFixed(1)} | ${done} | ${errors} | ${treeRssMegabytes(node.pid).toFixed(0)} | ${p99.toFixed(1)} | ${(connections?.n ?? 0) - 1} | ${refreshRows?.live} | ${refreshRows?.rotated} | ${sizes.join(' | ')} |`,
    );
    process.stderr.write(`${samples.at(-1)}\n`);
  }
  clearInterval(probe);
  await pacer;
  const report = [
    '# Soak report',
    '',
    `${new Date().toISOString()}: ${minutes} min of mixed load (refresh rotation, client_credentials, introspection, a code flow every fourth unit, a login start) at ${rate.toFixed(1)} units/s, half of the ${capacity.toFixed(1)} measured in a 10 s probe at concurrency 16; server.workers = auto. Reproduce: \`DATABASE_URL=... npm run soak\`.`,
    '',
    "RSS is the node (supervisor and workers). p99 is the latency of GET /health/live every 100 ms under the load: it follows event-loop delay. Connections exclude the soak tool's own. Refresh token rows: live (one per token family: the 64 the load rotates and one per code flow, kept until they expire unused) and rotated (a family's rows rotated within the grace window and a minute before its latest rotation; older ones are deleted at that rotation). Table sizes in KiB. An exchange deletes its authorization code's row, so that table holds the codes not yet exchanged; login transactions are kept a day after they expire (hourly housekeeping), audit records by design.",
    vacuumsItself
      ? '\nThis PostgreSQL server runs with autovacuum off, so the soak ran VACUUM on the measured tables before each sample, as autovacuum would.'
      : '',
    '',
    `| minute | units done | errors | RSS MB | /health/live p99 ms | DB connections | refresh tokens live | refresh tokens rotated | ${TABLES.join(' KiB | ')} KiB |`,
    `|---|---|---|---|---|---|---|---|${TABLES.map(() => '---|').join('')}`,
    ...samples,
    '',
  ].join('\n');
  writeFileSync(fileURLToPath(new URL('./SOAK.md', import.meta.url)), report);
  process.stdout.write(report);
} finally {
  await node.stop();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}
