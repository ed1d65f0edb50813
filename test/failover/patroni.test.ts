// A database failover under load on the topology docs/scaling.md recommends: Patroni (etcd) with two PostgreSQL 15
// nodes in synchronous mode, HAProxy on Patroni's REST check, and two Gatehouse nodes behind their own HAProxy. Run
// twice: Gatehouse reaching the database by the multi-host URL, then through the HAProxy database endpoint. Under a
// bounded mixed load the primary's machine dies (kill -9 of Patroni and the postmaster), Patroni promotes the
// standby, the dead node comes back as a replica, and then a planned switchover moves the primary once more. Every
// answer is recorded and checked afterwards against the database and from the outside. `npm run test:failover`.
//
// The numbers it prints (FAILOVER lines) are what docs/scaling.md reports. PATRONI_SYNCHRONOUS_MODE=false runs it
// with asynchronous replication, to show what that loses.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import { migrate } from '../../src/db/migrate.ts';
import { createPool } from '../../src/db/pool.ts';
import { makeAccount } from '../helpers/accounts.ts';
import { TestClock } from '../helpers/app.ts';
import { runCli } from '../helpers/cli.ts';
import { makeConfig, scratchDir } from '../helpers/config.ts';
import { type Recorded, startLoad } from '../helpers/failover-load.ts';
import { BALANCER_UNAVAILABLE } from '../helpers/haproxy.ts';
import { startMultiNode } from '../helpers/multi-node.ts';
import { call, until } from '../helpers/node-http.ts';
import { makeAdmin, makeClient, makeIdentity, makeSession } from '../helpers/oauth-fixtures.ts';
import {
  CONNECT_TIMEOUT_SECONDS,
  directSql,
  type PatroniNode,
  startPatroniCluster,
} from '../helpers/patroni-cluster.ts';
import { startUpstream } from '../helpers/upstream.ts';

const synchronousMode = process.env.PATRONI_SYNCHRONOUS_MODE !== 'false';
/** Each request's deadline; one still unanswered then is a hang. */
const REQUEST_TIMEOUT_MS = 20_000;
/** The documented bound (docs/scaling.md) for a 503 during a failover: the connect timeout plus a margin. */
const UNAVAILABLE_BOUND_MS = CONNECT_TIMEOUT_SECONDS * 1000 + 3000;

const cluster = await startPatroniCluster({ synchronousMode });
after(() => cluster.stop());

const upstream = await startUpstream();

/** Webhook deliveries by webhook-id (the outbox message id). */
const deliveries = new Map<string, number>();
const receiver = createServer((request, response) => {
  const id = String(request.headers['webhook-id'] ?? '');
  deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
  request.resume();
  request.on('end', () => response.writeHead(204).end());
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
after(() => {
  receiver.closeAllConnections();
  receiver.close();
});
const receiverPort = (receiver.address() as { port: number }).port;

const WRITE_LANES = new Set<Recorded['lane']>(['signup', 'authorize', 'code', 'refresh', 'revoke', 'admin']);

/**
 * The time without service around a fault at `since`: the longer of the longest gap between two successive successful
 * writes (from the last one before the fault to `window` ms after it) and the wait from the fault to the first success
 * of a write sent after it. The first catches a switchover, whose disruption begins some time after it was asked
 * for; the second a crash, where an answer delayed past the crash could split the gap in two.
 */
function outage(records: Recorded[], since: number, window = 60_000): number {
  const writes = records.filter((r) => WRITE_LANES.has(r.lane) && r.status >= 200 && r.status < 300);
  const ends = writes.map((r) => r.endedAt).sort((a, b) => a - b);
  const before = ends.filter((end) => end < since).at(-1) ?? since;
  const during = [before, ...ends.filter((end) => end >= since && end <= since + window)];
  let longest = 0;
  for (let i = 1; i < during.length; i += 1)
    longest = Math.max(longest, (during[i] as number) - (during[i - 1] as number));
  const firstAfter = Math.min(...writes.filter((r) => r.startedAt >= since).map((r) => r.endedAt));
  return Math.max(longest, Number.isFinite(firstAfter) ? firstAfter - since : 0);
}

function tally(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item.replace(/: .*$/, '')] = (counts[item.replace(/: .*$/, '')] ?? 0) + 1;
  return counts;
}

async function createDatabase(name: string): Promise<void> {
  const admin = directSql(cluster.haproxyUrl());
  try {
    await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

async function failoverUnderLoad(mode: 'multi-host' | 'haproxy') {
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    await run(mode, cleanup);
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  }
}

async function run(mode: 'multi-host' | 'haproxy', cleanup: (() => Promise<unknown>)[]) {
  const name = `gatehouse_${mode.replace('-', '_')}`;
  await createDatabase(name);
  const databaseUrl = mode === 'multi-host' ? cluster.multiHostUrl(name) : cluster.haproxyUrl(name);
  const sql = createPool(cluster.haproxyUrl(name), { max: 3, connectTimeoutSeconds: 5 });
  cleanup.push(() => sql.end({ timeout: 5 }));
  await migrate(sql);
  await sql`insert into organizations (id, name) values ('acme', 'Acme') on conflict do nothing`;

  const dir = scratchDir();
  const gatehouse = await startMultiNode({
    dir,
    databaseUrl,
    count: 2,
    connectTimeoutSeconds: CONNECT_TIMEOUT_SECONDS,
    extra: [
      '[self_service]',
      'enabled = true',
      '[delivery]',
      'kind = "webhook"',
      'from = "no-reply@acme.test"',
      '[delivery.webhook]',
      `url = "http://localhost:${receiverPort}/hook"`,
      // Every request comes from HAProxy's one address: the per-address limits are not under test.
      '[login]',
      'starts_per_ip_per_minute = 0',
      '[gateway]',
      'enabled = true',
      'route_prefix = "/app"',
      `upstream_port = ${upstream.port}`,
      '[auth]',
      'enabled = true',
      'provider_id = "gatehouse"',
      'organization_id = "acme"',
      'protected_route_prefix = "/app/p"',
      '[[auth.route_policies]]',
      'path_prefix = "/app/p/check"',
      'methods = ["GET"]',
    ].join('\n'),
  });
  cleanup.push(() => gatehouse.stop());
  const lb = gatehouse.balancer.url;
  const config = makeConfig();
  const t = { sql, config, clock: new TestClock() };
  const { client, secret } = await makeClient(sql, gatehouse.secrets.clientSecret);
  const accounts = [];
  for (let i = 0; i < 4; i += 1) accounts.push(await makeAccount(sql, gatehouse.secrets, config, { totp: false }));
  const sessions = [];
  for (let i = 0; i < 6; i += 1) {
    // Members of the organization, so the gateway lets their live tokens through to the product.
    const sub = await makeIdentity(sql);
    await sql`insert into memberships (organization_id, identity_id, roles, created_at)
              values ('acme', ${sub}, ${['member']}, now())`;
    sessions.push((await makeSession(t, sub)).cookie);
  }
  const admin = await makeAdmin(t);

  // Readiness of each node, polled directly (not through the balancer) throughout.
  const readiness: { node: number; at: number; status: number }[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      for (const [index, node] of gatehouse.nodes.entries()) {
        const answer = await call(node.url, 'GET', '/health/ready', { timeoutMs: 5000 }).catch(() => null);
        readiness.push({ node: index, at: Date.now(), status: answer?.status ?? 0 });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();

  const load = startLoad({
    url: lb,
    client,
    secret: secret as string,
    accounts,
    sessions,
    adminCookie: admin.cookie,
    signupCap: 30,
    timeoutMs: REQUEST_TIMEOUT_MS,
  });
  const succeededSince = (since: number, lane: Recorded['lane'], count: number) =>
    until(
      `${count} ${lane} requests succeed`,
      async () =>
        load.records.filter((r) => r.lane === lane && r.startedAt >= since && r.status === 200).length >= count
          ? true
          : undefined,
      60_000,
    );
  const measurements: Record<string, number> = {};
  const events: Record<string, number> = {};
  try {
    await succeededSince(0, 'refresh', 5);

    // 1. The primary's machine dies.
    const first = (await cluster.leader()) as PatroniNode;
    const other = cluster.nodes.find((n) => n !== first) as PatroniNode;
    let resume = () => {};
    if (!synchronousMode) {
      // What asynchronous replication risks, made to happen: the standby stops receiving WAL for a moment, as a slow
      // network or disk would make it lag, and the primary dies with commits it acknowledged and never sent.
      resume = await cluster.stallReplication(other);
      await succeededSince(Date.now(), 'refresh', 5);
    }
    const crashedAt = Date.now();
    events.crash = crashedAt;
    await cluster.crash(first);
    resume();
    await until(
      'Patroni promotes the standby',
      async () => ((await cluster.leader()) === other ? true : undefined),
      60_000,
    );
    measurements.promoted_ms = Date.now() - crashedAt;
    await succeededSince(crashedAt, 'refresh', 3);
    measurements.crash_outage_ms = outage(load.records, crashedAt);

    // 2. It comes back as a replica of the new primary.
    const restartedAt = Date.now();
    events.restart = restartedAt;
    await cluster.restart(first);
    await cluster.waitHealthy();
    measurements.rejoin_ms = Date.now() - restartedAt;
    const rejoined = Date.now();
    await succeededSince(rejoined, 'refresh', 3);

    // 3. A planned switchover back to it.
    const switchedAt = Date.now();
    events.switchover = switchedAt;
    await cluster.switchover(other, first);
    await until(
      'the switchover completes',
      async () => ((await cluster.leader()) === first ? true : undefined),
      60_000,
    );
    measurements.switchover_promoted_ms = Date.now() - switchedAt;
    await succeededSince(switchedAt, 'refresh', 3);
    measurements.switchover_outage_ms = outage(load.records, switchedAt);
    await cluster.waitHealthy();
    measurements.switchover_follow_ms = Date.now() - switchedAt;
    await succeededSince(Date.now(), 'code', 2);
  } finally {
    await load.stop();
    polling = false;
    await poller;
  }
  process.stdout.write(`FAILOVER ${mode} sync=${synchronousMode} ${JSON.stringify(measurements)}\n`);
  const records = load.records;

  // Both Gatehouse processes served throughout: none died.
  for (const node of gatehouse.nodes)
    assert.equal(
      node.child.exitCode ?? node.child.signalCode,
      null,
      `a Gatehouse node died: ${node.stderr().slice(-4000)}`,
    );
  // No request hung past its deadline or lost its connection; every failure is the 503 envelope (an authorization
  // goes back to the client with error=temporarily_unavailable instead), and quick.
  const notOk = records.filter((r) => r.status < 200 || r.status >= 300);
  // A failure's wait counts from when the request started or, for one in flight at a fault, from the fault.
  const waited = (r: Recorded) =>
    r.endedAt - Math.max(r.startedAt, ...Object.values(events).filter((at) => at <= r.endedAt));
  // While every node reports not ready, the balancer in front of them has no server and answers 503 itself, in
  // Gatehouse's envelope (test/helpers/haproxy.ts, docs/scaling.md).
  const fromBalancer = (r: Recorded) => r.status === 503 && r.answer?.json.error_description === BALANCER_UNAVAILABLE;
  const errors: Record<string, number> = {};
  for (const r of notOk) {
    const key = `${r.lane} ${r.status} ${fromBalancer(r) ? 'balancer' : (r.error ?? '')}`;
    errors[key] = (errors[key] ?? 0) + 1;
  }
  process.stdout.write(`FAILOVER ${mode} failure kinds ${JSON.stringify(errors)}\n`);
  process.stdout.write(
    `FAILOVER ${mode} failures ${notOk.length} (${notOk.filter(fromBalancer).length} from the balancer), slowest ${Math.max(0, ...notOk.map(waited))} ms\n`,
  );
  const ok = (lane: Recorded['lane']) => records.filter((r) => r.lane === lane && r.status >= 200 && r.status < 300);
  process.stdout.write(
    `FAILOVER ${mode} answers ${JSON.stringify(
      Object.fromEntries(
        ['signup', 'signin', 'authorize', 'code', 'refresh', 'revoke', 'admin'].map((lane) => [
          lane,
          `${ok(lane as Recorded['lane']).length}/${records.filter((r) => r.lane === lane).length}`,
        ]),
      ),
    )}\n`,
  );
  const unexpected = notOk.filter(
    (r) => r.status !== 503 && !(r.lane === 'authorize' && r.status === 302 && r.error === 'temporarily_unavailable'),
  );
  assert.deepEqual(
    unexpected.map((r) => ({ lane: r.lane, status: r.status, error: r.error, text: r.answer?.text.slice(0, 300) })),
    [],
  );
  for (const r of notOk.filter((x) => x.status === 503)) {
    assert.deepEqual(
      r.answer?.json,
      {
        error: 'temporarily_unavailable',
        error_description: fromBalancer(r)
          ? BALANCER_UNAVAILABLE
          : 'The service cannot reach its database right now; retry shortly.',
        request_id: r.answer?.headers.get('x-request-id'),
      },
      `${r.lane}: ${r.answer?.text.slice(0, 300)}`,
    );
    assert.equal(r.answer?.headers.get('retry-after'), '2');
  }
  const slow = notOk.filter((r) => waited(r) > UNAVAILABLE_BOUND_MS);
  if (slow.length > 0) {
    // What the nodes logged for the slow ones (their request ids), to tell which wait they sat out.
    const ids = new Set(slow.map((r) => r.answer?.headers.get('x-request-id')));
    const logged = gatehouse.nodes.flatMap((node) =>
      node.logs.filter((l) => ids.has(l.reqId as string) || ids.has(l.requestId as string)),
    );
    process.stdout.write(`FAILOVER ${mode} slow failures logged ${JSON.stringify(logged.slice(0, 10))}\n`);
  }
  assert.deepEqual(
    slow.map((r) => ({
      lane: r.lane,
      status: r.status,
      ms: r.endedAt - r.startedAt,
      after: Object.fromEntries(Object.entries(events).map(([k, v]) => [k, r.startedAt - v])),
      text: r.answer?.text.slice(0, 200),
    })),
    [],
    'failures slower than the bound',
  );

  // /health/ready: not ready during the failover, ready at the end, from the same processes.
  for (const index of [0, 1]) {
    const seen = readiness.filter((r) => r.node === index).map((r) => r.status);
    assert.ok(seen.includes(503), `node ${index + 1} never reported not ready`);
    assert.equal(seen.at(-1), 200, `node ${index + 1} is not ready again`);
    assert.equal(gatehouse.nodes[index]?.child.exitCode, null);
  }

  // Every 2xx has its effect, and no decision was undone. Each breach is collected, so a run with asynchronous
  // replication lists everything it lost before it fails.
  const breaches: string[] = [];
  const expect = (holds: boolean, breach: string) => {
    if (!holds) breaches.push(breach);
  };
  for (const r of ok('signup')) {
    const [row] = await sql`
      select i.state, (select count(*)::int from emails e where e.identity_id = i.id) as emails,
             (select count(*)::int from sign_in_methods m where m.identity_id = i.id) as methods
      from identities i where i.id = ${r.subject as string}`;
    expect(
      row?.state === 'pending_verification' && row.emails === 1 && row.methods === 1,
      `an acknowledged sign-up is missing or half-written: ${JSON.stringify(row ?? null)}`,
    );
  }
  for (const r of ok('signin')) {
    // The accounts have a password only, so the session waits for a second factor's enrollment; a session that
    // was not stored would be refused as signed out (401) instead.
    const profile = await call(lb, 'GET', '/account/profile', {
      headers: { cookie: r.subject as string },
      forwardedFor: null,
    });
    expect(
      profile.json.error === 'enrollment_required',
      `an acknowledged sign-in's session is unknown: ${profile.text}`,
    );
  }
  for (const r of ok('admin')) {
    const [row] = await sql`select count(*)::int as n from oauth_applications where id = ${r.subject as string}`;
    expect(row?.n === 1, `an acknowledged admin write is missing: application ${r.subject}`);
  }
  const introspect = async (token: string) =>
    (
      await call(lb, 'POST', '/oauth/introspect', {
        form: { client_id: client.id, client_secret: secret as string, token },
        forwardedFor: null,
      })
    ).json.active;
  const gateway = async (access: string) =>
    (await call(lb, 'GET', '/app/p/check', { headers: { authorization: `Bearer ${access}` }, forwardedFor: null }))
      .status;

  // Refresh chains: each token the load was given either was rotated (its successor known), revoked, or is live.
  const successor = new Map(ok('refresh').map((r) => [r.subject as string, r.made?.refresh as string]));
  const revoked = new Set(ok('revoke').map((r) => r.subject as string));
  const unclear = new Set(
    records
      .filter((r) => (r.lane === 'refresh' || r.lane === 'revoke') && r.status !== 200)
      .map((r) => r.subject as string),
  );
  const issued = [...ok('code'), ...ok('refresh')];
  for (const r of issued) {
    const token = r.made?.refresh as string;
    if (successor.has(token) || unclear.has(token)) continue;
    const live = !revoked.has(token);
    expect(
      (await introspect(token)) === live,
      live ? 'an acknowledged rotation or code redemption was lost' : 'a revoked refresh token is active again',
    );
    // Introspection and the gateway agree about the access token issued with it.
    const access = r.made?.access as string;
    const active = await introspect(access);
    const passed = await gateway(access);
    expect(passed === (active ? 200 : 401), `the gateway (${passed}) disagrees with introspection (active: ${active})`);
    expect(live || active === false, 'an access token of a revoked family is active again');
  }

  // No refresh token rotated twice: no grant holds two unrotated tokens, and every rotated token replayed now is
  // refused or, within the grace window, answered with the successor it already had.
  const forks =
    await sql`select grant_id from oauth_refresh_tokens where rotated_at is null group by grant_id having count(*) > 1`;
  expect(forks.length === 0, `${forks.length} refresh token families forked`);
  for (const token of successor.keys()) {
    const replay = await call(lb, 'POST', '/oauth/token', {
      form: {
        grant_type: 'refresh_token',
        client_id: client.id,
        client_secret: secret as string,
        refresh_token: token,
      },
      forwardedFor: null,
    });
    // Within the grace window (refresh_token_grace_seconds, 5 s) a replay gets the same successor back: an honest
    // retry, not a second rotation. Anything else but a refusal is a second rotation.
    const sameSuccessor = replay.status === 200 && replay.json.refresh_token === successor.get(token);
    expect(replay.status === 400 || sameSuccessor, `a rotated refresh token was rotated again (${replay.status})`);
  }
  // No authorization code redeemed twice. A code redeemed with a 200, presented again, is refused. A code whose
  // redemption got a 503 may have been rolled back, and then works once: presented twice, it succeeds at most once.
  const redeem = async (r: Recorded) =>
    (
      await call(lb, 'POST', '/oauth/token', {
        form: {
          grant_type: 'authorization_code',
          client_id: client.id,
          client_secret: secret as string,
          code: r.code as string,
          redirect_uri: client.redirectUris[0] as string,
          code_verifier: r.verifier as string,
        },
        forwardedFor: null,
      })
    ).status;
  for (const r of records.filter((x) => x.lane === 'code' && x.code)) {
    if (r.status === 200) expect((await redeem(r)) === 400, 'a redeemed authorization code was accepted again');
    else expect((await redeem(r)) !== 200 || (await redeem(r)) !== 200, 'an authorization code was redeemed twice');
  }
  if (breaches.length > 0) process.stdout.write(`FAILOVER ${mode} breaches ${JSON.stringify(tally(breaches))}\n`);
  assert.deepEqual(breaches, [], 'acknowledged writes lost or decisions undone');

  // Nothing half-written.
  const [orphans] = await sql`
    select
      (select count(*)::int from emails e where e.normalized like 'failover%'
         and not exists (select 1 from sign_in_methods m where m.identity_id = e.identity_id)) as signups_without_method,
      (select count(*)::int from emails e where e.normalized like 'failover%'
         and not exists (select 1 from outbox_messages o where o.recipient = e.address)) as signups_without_message,
      (select count(*)::int from oauth_grants g
         where not exists (select 1 from oauth_refresh_tokens r where r.grant_id = g.id)) as grants_without_token`;
  assert.deepEqual({ ...orphans }, { signups_without_method: 0, signups_without_message: 0, grants_without_token: 0 });

  // The outbox: nothing delivered twice, every sent message delivered once, and nothing lost. Delivery is
  // at-least-once across a crash (src/delivery/worker.ts): a message whose claim or whose "sent" was being recorded
  // when the primary died stays claimed until its lease ends (5 minutes) and is tried again then, so the test waits
  // for every message to be sent or to hold a lease, and does not wait the lease out. A delivery that failed during
  // the failover is retried after its backoff (30 s at first), so the wait is longer than that.
  const pendingUnclaimed = async () => {
    const [row] = await sql`
      select count(*)::int as n from outbox_messages
      where state = 'pending' and (claim_expires_at is null or claim_expires_at < now())`;
    return row?.n === 0 ? true : undefined;
  };
  await until('every outbox message is sent or held by a lease', pendingUnclaimed, 120_000);
  const messages = await sql<{ id: string; state: string }[]>`
    select id, state from outbox_messages where recipient like 'failover%'`;
  assert.ok(messages.length > 0);
  for (const m of messages) {
    const times = deliveries.get(m.id) ?? 0;
    if (m.state === 'sent') assert.equal(times, 1, `message ${m.id} delivered ${times} times`);
    else assert.ok(m.state === 'pending' && times <= 1, `message ${m.id} (${m.state}) delivered ${times} times`);
  }
  const leased = messages.filter((m) => m.state === 'pending').length;
  process.stdout.write(`FAILOVER ${mode} outbox ${messages.length} messages, ${leased} waiting for their lease\n`);

  // The audit chains verify.
  const verify = await runCli(['audit', 'verify', '--config', gatehouse.configFiles[0] as string], {
    env: { DATABASE_URL: databaseUrl },
  });
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /^OK: \d+ records in \d+ chains verified/m);
}

describe(`a Patroni failover under load (synchronous_mode: ${synchronousMode})`, () => {
  test('through the multi-host URL', { timeout: 600_000 }, () => failoverUnderLoad('multi-host'));
  test('through the HAProxy database endpoint', { timeout: 600_000 }, () => failoverUnderLoad('haproxy'));
});
