// The same operations on an empty database and on one seeded with BENCH_SEED_IDENTITIES identities (a million by
// default, `npm run seed`): sign-in, refresh rotation, introspection, admin identity search by email prefix and by
// name substring, and the audit listing. Each is timed as the median latency of requests one at a time, so the
// comparison shows what table size adds to one request, not how throughput is shared. Both nodes run side by side and
// each operation alternates between them request by request: on a shared machine whose load changes by the minute, a
// run of the empty database first and the seeded one later compared two different machines.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { request } from 'undici';
import { emailOf, nameOf } from '../../scripts/seed-people.ts';
import { type Account, makeAccount, totpCode } from '../../test/helpers/accounts.ts';
import type { TestApp } from '../../test/helpers/app.ts';
import { makeAdmin } from '../../test/helpers/oauth-fixtures.ts';
import { FORM, form, startOAuthBench } from '../helpers/oauth.ts';
import { type Metric, median, type Scenario } from '../lib.ts';

const SEEDED = Number(process.env.BENCH_SEED_IDENTITIES ?? 1_000_000);
const REQUESTS = 200;
const SIGN_INS = 40;
const run = promisify(execFile);

type Operation =
  | 'sign-in'
  | 'refresh'
  | 'introspection'
  | 'admin search by email'
  | 'admin search by name'
  | 'audit listing';

/** Median latency of `times` requests on each side, alternating sides request by request, after a warm-up of each. */
async function timedSideBySide(
  times: number,
  sides: [() => Promise<void>, () => Promise<void>],
): Promise<[number, number]> {
  for (let i = 0; i < Math.min(20, times); i += 1) for (const once of sides) await once();
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < times; i += 1)
    for (const [side, once] of sides.entries()) {
      const started = performance.now();
      await once();
      samples[side]?.push(performance.now() - started);
    }
  return [median(samples[0]), median(samples[1])];
}

async function expect(status: number, answer: Promise<Awaited<ReturnType<typeof request>>>) {
  const response = await answer;
  const text = await response.body.text();
  if (response.statusCode !== status) throw new Error(`answered ${response.statusCode}: ${text}`);
  return text;
}

type Operations = Map<Operation, { times: number; once: () => Promise<void> }>;

/** A node on a database seeded with `seed` identities, and each operation as one request to it. */
interface Prepared {
  operations: Operations;
  /** PostgreSQL's buffer cache and the database's size: what decides whether a search reads from the OS's cache. */
  database: { sharedBuffers: string; size: string };
  stop(): Promise<void>;
}

async function prepare(seed: number): Promise<Prepared> {
  const bench = await startOAuthBench();
  const { server } = bench;
  try {
    if (seed > 0)
      await run(
        process.execPath,
        ['scripts/seed.ts', '--identities', String(seed), '--database-url', server.config.database.url],
        {
          maxBuffer: 1 << 24,
        },
      );
    const app = { sql: server.sql, config: server.config, clock: { now: () => new Date() } } as unknown as TestApp;
    const admin = await makeAdmin(app);
    const operations: Operations = new Map();
    const get = (path: string, cookie = '') => expect(200, request(`${server.url}${path}`, { headers: { cookie } }));

    const accounts: Account[] = [];
    for (let i = 0; i < SIGN_INS + 20; i += 1)
      accounts.push(await makeAccount(server.sql, server.secrets, server.config));
    let next = 0;
    operations.set('sign-in', {
      times: SIGN_INS,
      async once() {
        const account = accounts[next++];
        if (!account?.totpSeed) throw new Error('out of accounts');
        const headers = { 'content-type': 'application/json', origin: server.config.server.issuer };
        const started = await request(`${server.url}/auth/login`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ subject: account.email }),
        });
        const body = (await started.body.json()) as Record<string, string>;
        const cookie = String(started.headers['set-cookie']).split(';')[0] ?? '';
        await expect(
          200,
          request(`${server.url}/auth/mfa/verify`, {
            method: 'POST',
            headers: { ...headers, cookie },
            body: JSON.stringify({
              transaction_id: body.transaction_id,
              challenge_id: body.challenge_id,
              password: account.password,
              totp: totpCode(account.totpSeed, new Date()),
            }),
          }),
        );
      },
    });

    let { refresh_token: refreshToken, access_token: accessToken } = await bench.userGrant();
    const web = bench.web;
    operations.set('refresh', {
      times: REQUESTS,
      async once() {
        const text = await expect(
          200,
          request(`${server.url}/oauth/token`, {
            method: 'POST',
            headers: FORM,
            body: form({
              grant_type: 'refresh_token',
              client_id: web.clientId,
              client_secret: web.secret,
              refresh_token: refreshToken,
            }),
          }),
        );
        ({ refresh_token: refreshToken, access_token: accessToken } = JSON.parse(text));
      },
    });
    operations.set('introspection', {
      times: REQUESTS,
      async once() {
        await expect(
          200,
          request(`${server.url}/oauth/introspect`, {
            method: 'POST',
            headers: FORM,
            body: form({ client_id: web.clientId, client_secret: web.secret, token: accessToken }),
          }),
        );
      },
    });
    // The administrator looks for a seeded person (seed-people.ts) by the start of their address, as a support
    // request quotes it, and by their full name; on the seeded node the answer must hold that person.
    let n = 0;
    const person = () => 1 + ((n++ * 7919) % Math.max(1, SEEDED - 1));
    const search = async (q: string, who: number) => {
      const text = await get(`/admin/identities?q=${encodeURIComponent(q)}`, admin.cookie);
      if (seed === 0) return;
      const found = (JSON.parse(text) as { identities: { email: string; display_name: string }[] }).identities;
      // A name common enough to fill the first page may leave this person to a later one.
      const pageOfNamesakes = found.length === 25 && found.every((i) => i.display_name === nameOf(who));
      if (!found.some((i) => i.email === emailOf(who)) && !pageOfNamesakes)
        throw new Error(`searching ${q} did not find ${emailOf(who)}`);
    };
    operations.set('admin search by email', {
      times: REQUESTS,
      once: () => {
        const who = person();
        return search(emailOf(who).replace(/@.*/, ''), who);
      },
    });
    operations.set('admin search by name', {
      times: REQUESTS,
      once: () => {
        const who = person();
        return search(nameOf(who), who);
      },
    });
    operations.set('audit listing', {
      times: REQUESTS,
      once: () => get('/admin/audit', admin.cookie).then(() => {}),
    });
    const [database] = await server.sql<{ shared_buffers: string; size: string }[]>`
      select current_setting('shared_buffers') as shared_buffers,
             pg_size_pretty(pg_database_size(current_database())) as size`;
    return {
      operations,
      database: { sharedBuffers: database?.shared_buffers ?? '?', size: database?.size ?? '?' },
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

export const scenario: Scenario = {
  name: 'data-at-scale',
  description: `Median latency of one request at a time (${REQUESTS} each, ${SIGN_INS} sign-ins) on an empty database and on one seeded with ${SEEDED} identities (emails, password methods, grants, refresh families), both nodes running and each operation alternating between them request by request; target: seeded within 1.2× of empty.`,
  async run() {
    const empty = await prepare(0);
    const seeded = await prepare(SEEDED).catch(async (error) => {
      await empty.stop();
      throw error;
    });
    try {
      const metrics: Metric[] = [];
      const ratios = [];
      for (const [operation, small] of empty.operations) {
        const big = seeded.operations.get(operation);
        if (!big) throw new Error(`no ${operation} on the seeded node`);
        const [emptyMs, seededMs] = await timedSideBySide(small.times, [small.once, big.once]);
        metrics.push({ name: `${operation}, empty`, unit: 'ms', samples: [emptyMs] });
        metrics.push({ name: `${operation}, ${SEEDED} identities`, unit: 'ms', samples: [seededMs] });
        ratios.push({ name: `${operation}: seeded / empty`, value: seededMs / emptyMs, target: { atMost: 1.2 } });
      }
      return {
        metrics,
        ratios,
        notes: [
          `PostgreSQL shared_buffers: ${seeded.database.sharedBuffers}; the seeded database: ${seeded.database.size}, the empty one ${empty.database.size}. Pages a request needs that are not in shared_buffers are read from the operating system's cache, which is slower; a server sized for its data holds the indexes in shared_buffers.`,
        ],
      };
    } finally {
      await seeded.stop();
      await empty.stop();
    }
  },
};
