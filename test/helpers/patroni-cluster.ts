// A Patroni cluster made of Debian's own parts (apt-get install patroni etcd-server haproxy postgresql), started by a
// test in a temporary directory on free ports and stopped with it; the machine's PostgreSQL is never touched. One
// etcd, two PostgreSQL 15 nodes managed by Patroni (the first bootstraps, the second is cloned from it with
// pg_basebackup), and HAProxy as the database endpoint that follows the primary by Patroni's REST check. Every
// process logs to a file in the directory, which a failing test names. PostgreSQL refuses to run as root, so when
// the test runs as root Patroni runs as the postgres system user (runuser), who owns the directory.
//
// The configuration text is produced by patroniConfig() and haproxyDatabaseConfig() below; docs/scaling.md shows it
// and test/scaling-doc.test.ts checks that the document still says what these functions produce.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort, HAPROXY, untilAccepting } from './haproxy.ts';
import { until } from './node-http.ts';
import { PG_BIN } from './owned-postgres.ts';

const run = promisify(execFile);
export const PATRONI = '/usr/bin/patroni';
export const ETCD = '/usr/bin/etcd';

export interface PatroniNodeSettings {
  scope: string;
  name: string;
  /** The address this node listens on and others reach it at (127.0.0.1 in the test). */
  host: string;
  restPort: number;
  pgPort: number;
  /** etcd's client endpoints, host:port. */
  etcd: string[];
  dataDir: string;
  socketDir: string;
  synchronousMode: boolean;
  /** Who may connect (pg_hba): the test's loopback, a deployment's database network. */
  network: string;
  /**
   * Passwords for the superuser and the replication user (scram-sha-256); without them every connection from the
   * network is trusted, which only the test, on loopback in a directory of its own, may do.
   */
  passwords?: { superuser: string; replication: string };
}

/**
 * One node's patroni.yml. The bootstrap section is written to etcd by the first node and is the cluster's: ttl 10 is
 * how long a dead primary keeps the leader key, so it bounds detection; loop_wait 1 runs Patroni's loop every second.
 */
export function patroniConfig(s: PatroniNodeSettings): string {
  const method = s.passwords ? 'scram-sha-256' : 'trust';
  const password = (value: string | undefined) => (value ? `\n      password: ${value}` : '');
  return `scope: ${s.scope}
name: ${s.name}
restapi:
  listen: ${s.host}:${s.restPort}
  connect_address: ${s.host}:${s.restPort}
etcd3:
  hosts: ${s.etcd.join(',')}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 1
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: ${s.synchronousMode}
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 5
        max_replication_slots: 5
        max_connections: 100
  initdb:
    - encoding: UTF8
    - auth: ${method}
  pg_hba:
    - host replication replicator ${s.network} ${method}
    - host all all ${s.network} ${method}
postgresql:
  listen: ${s.host}:${s.pgPort}
  connect_address: ${s.host}:${s.pgPort}
  data_dir: ${s.dataDir}
  bin_dir: ${PG_BIN}
  pgpass: ${s.dataDir}.pgpass
  authentication:
    superuser:
      username: postgres${password(s.passwords?.superuser)}
    replication:
      username: replicator${password(s.passwords?.replication)}
    rewind:
      username: postgres${password(s.passwords?.superuser)}
  parameters:
    unix_socket_directories: ${s.socketDir}
`;
}

/**
 * HAProxy as the database endpoint: TCP through to whichever node answers Patroni's `GET /primary` with 200. A node
 * marked down has its connections cut (on-marked-down shutdown-sessions), so nothing stays on a demoted primary.
 */
export function haproxyDatabaseConfig(s: {
  bind: string;
  statsSocket: string;
  nodes: { name: string; host: string; pgPort: number; restPort: number }[];
}): string {
  const servers = s.nodes.map(
    (node) =>
      `  server ${node.name} ${node.host}:${node.pgPort} check port ${node.restPort} inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions`,
  );
  return `global
  maxconn 500
  stats socket ${s.statsSocket} mode 600 level admin
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s
listen postgres
  bind ${s.bind}
  option httpchk GET /primary
  http-check expect status 200
${servers.join('\n')}
`;
}

/** Gatehouse's database.connect_timeout_seconds in the failover test and the example: bounds an unreachable server. */
export const CONNECT_TIMEOUT_SECONDS = 2;

/** The multi-host URL docs/scaling.md recommends: every node, and only a primary will do. */
export function multiHostDatabaseUrl(servers: string[], user: string, database: string): string {
  return `postgres://${user}@${servers.join(',')}/${database}?target_session_attrs=read-write`;
}

export interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  /** postgres://postgres@127.0.0.1:PORT/DB straight to this node. */
  url(database?: string): string;
  log(): string;
}

export interface PatroniCluster {
  dir: string;
  nodes: PatroniNode[];
  /** The multi-host URL docs/scaling.md recommends: both nodes, read-write. */
  multiHostUrl(database?: string): string;
  /** Through HAProxy's database endpoint. */
  haproxyUrl(database?: string): string;
  /** The node Patroni reports as leader and that is running, or null. */
  leader(): Promise<PatroniNode | null>;
  /** Waits until one node leads and every node is streaming (and with synchronous mode one is the sync standby). */
  waitHealthy(timeoutMs?: number): Promise<PatroniNode>;
  /** Waits until HAProxy sends database connections to `node` and no other. */
  waitHaproxyOn(node: PatroniNode, timeoutMs?: number): Promise<void>;
  /** Patroni's REST /cluster answer. */
  clusterState(): Promise<ClusterMember[]>;
  /** A planned switchover through Patroni's REST API: POST /switchover on the leader. */
  switchover(from: PatroniNode, to: PatroniNode): Promise<void>;
  /**
   * The machine of `node` dies: kill -9 of its Patroni and of its postmaster at once (killing the postmaster alone
   * would only make Patroni restart it as primary). Resolves once both are gone.
   */
  crash(node: PatroniNode): Promise<void>;
  /** Starts the crashed node's Patroni again; it rejoins as a replica of whoever leads now (pg_rewind if needed). */
  restart(node: PatroniNode): Promise<void>;
  /**
   * Stops the standby's WAL receiver (SIGSTOP) so it falls behind the primary, as a slow network or disk would make
   * it; the returned function lets it go on. For showing what asynchronous replication loses.
   */
  stallReplication(standby: PatroniNode): Promise<() => void>;
  stop(): Promise<void>;
}

export interface ClusterMember {
  name: string;
  role: string;
  state: string;
  lag?: number | string;
  timeline?: number;
}

async function ownedDir(prefix: string): Promise<{ dir: string; uid: number; gid: number } | { dir: string }> {
  const dir = mkdtempSync(prefix);
  if (userInfo().uid !== 0) return { dir };
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  chownSync(dir, uid, gid);
  return { dir, uid, gid };
}

interface Spawned {
  child: ChildProcess;
  exited: Promise<void>;
}

function spawnLogged(command: string, args: string[], logFile: string, owner?: { uid: number; gid: number }): Spawned {
  const out = openSync(logFile, 'a');
  // As the directory's owner directly (not through runuser), so the child's pid is Patroni's own, which crash() kills.
  const child = spawn(command, args, {
    stdio: ['ignore', out, out],
    ...(owner ? { uid: owner.uid, gid: owner.gid, env: { ...process.env, HOME: path.dirname(logFile) } } : {}),
  });
  closeSync(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited };
}

async function stopProcess(spawned: Spawned, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  const { child } = spawned;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const force = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await spawned.exited;
  clearTimeout(force);
}

async function rest(port: number, method: string, pathname: string, body?: unknown) {
  const response = await fetch(`http://127.0.0.1:${port}${pathname}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    signal: AbortSignal.timeout(5000),
  });
  const text = await response.text();
  return { status: response.status, text };
}

/** One line of HAProxy's `show servers state`-like `show stat` for each server: name → UP/DOWN. */
async function haproxyStates(socketPath: string): Promise<Map<string, string>> {
  const text = await new Promise<string>((resolve, reject) => {
    let out = '';
    const socket = createConnection(socketPath, () => socket.end('show stat\n'));
    socket.on('data', (chunk) => {
      out += chunk.toString();
    });
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
  const states = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [proxy, server, ...fields] = line.split(',');
    if (proxy !== 'postgres' || !server || server === 'FRONTEND' || server === 'BACKEND') continue;
    states.set(server, fields[15] ?? ''); // the 18th column, status
  }
  return states;
}

export async function startPatroniCluster(options: { synchronousMode?: boolean } = {}): Promise<PatroniCluster> {
  const owned = await ownedDir('/tmp/gatehouse-patroni-');
  const { dir } = owned;
  const owner = 'uid' in owned ? { uid: owned.uid, gid: owned.gid } : undefined;
  const scope = `gatehouse-${path.basename(dir).slice(-6).toLowerCase()}`;
  const etcdPort = await freePort();
  const etcdPeerPort = await freePort();

  const etcdDir = path.join(dir, 'etcd');
  mkdirSync(etcdDir);
  const etcd = spawnLogged(
    ETCD,
    [
      '--name',
      'etcd1',
      '--data-dir',
      path.join(etcdDir, 'data'),
      '--listen-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--advertise-client-urls',
      `http://127.0.0.1:${etcdPort}`,
      '--listen-peer-urls',
      `http://127.0.0.1:${etcdPeerPort}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${etcdPeerPort}`,
      '--initial-cluster',
      `etcd1=http://127.0.0.1:${etcdPeerPort}`,
    ],
    path.join(dir, 'etcd.log'),
  );

  const patronis: Spawned[] = [];
  const startPatroni = (name: string) =>
    spawnLogged(PATRONI, [path.join(dir, `${name}.yml`)], path.join(dir, `${name}.log`), owner);
  const nodes: PatroniNode[] = [];
  const settings: PatroniNodeSettings[] = [];
  for (const name of ['pg1', 'pg2']) {
    const s: PatroniNodeSettings = {
      scope,
      name,
      host: '127.0.0.1',
      restPort: await freePort(),
      pgPort: await freePort(),
      etcd: [`127.0.0.1:${etcdPort}`],
      network: '127.0.0.1/32',
      dataDir: path.join(dir, name, 'data'),
      socketDir: path.join(dir, name),
      synchronousMode: options.synchronousMode ?? true,
    };
    settings.push(s);
    mkdirSync(s.socketDir);
    if ('uid' in owned) chownSync(s.socketDir, owned.uid, owned.gid);
    writeFileSync(path.join(dir, `${name}.yml`), patroniConfig(s));
    const logFile = path.join(dir, `${name}.log`);
    nodes.push({
      name,
      pgPort: s.pgPort,
      restPort: s.restPort,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${s.pgPort}/${database}`,
      log: () => readFileSync(logFile, 'utf8'),
    });
  }

  const haproxyPort = await freePort();
  const statsSocket = path.join(dir, 'haproxy.sock');
  const haproxyFile = path.join(dir, 'haproxy.cfg');
  writeFileSync(
    haproxyFile,
    haproxyDatabaseConfig({
      bind: `127.0.0.1:${haproxyPort}`,
      statsSocket,
      nodes: settings.map((s) => ({ name: s.name, host: s.host, pgPort: s.pgPort, restPort: s.restPort })),
    }),
  );

  const cluster: PatroniCluster = {
    dir,
    nodes,
    multiHostUrl: (database = 'postgres') =>
      multiHostDatabaseUrl(
        nodes.map((n) => `127.0.0.1:${n.pgPort}`),
        'postgres',
        database,
      ),
    haproxyUrl: (database = 'postgres') => `postgres://postgres@127.0.0.1:${haproxyPort}/${database}`,
    async clusterState() {
      for (const node of nodes) {
        const answer = await rest(node.restPort, 'GET', '/cluster').catch(() => null);
        if (answer?.status === 200) return (JSON.parse(answer.text) as { members: ClusterMember[] }).members;
      }
      return [];
    },
    async leader() {
      const members = await cluster.clusterState();
      const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
      return nodes.find((n) => n.name === leader?.name) ?? null;
    },
    async waitHealthy(timeoutMs = 90_000) {
      return await until(
        'the Patroni cluster has a leader and every node streams from it',
        async () => {
          const members = await cluster.clusterState();
          const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
          const standbys = members.filter((m) => m.role !== 'leader');
          const streaming = standbys.every((m) => m.state === 'streaming' || m.state === 'running');
          const synced = !(options.synchronousMode ?? true) || standbys.some((m) => m.role === 'sync_standby');
          if (!leader || standbys.length !== nodes.length - 1 || !streaming || !synced) return undefined;
          // The leader's PostgreSQL must take writes (a promotion finishes after Patroni reports the role).
          const node = nodes.find((n) => n.name === leader.name) as PatroniNode;
          const answer = await rest(node.restPort, 'GET', '/primary').catch(() => null);
          return answer?.status === 200 ? node : undefined;
        },
        timeoutMs,
      );
    },
    async waitHaproxyOn(node, timeoutMs = 60_000) {
      await until(
        `HAProxy sends database connections to ${node.name} only`,
        async () => {
          const states = await haproxyStates(statsSocket).catch(() => null);
          if (!states) return undefined;
          const up = [...states].filter(([, state]) => state.startsWith('UP')).map(([name]) => name);
          return up.length === 1 && up[0] === node.name ? true : undefined;
        },
        timeoutMs,
      );
    },
    async switchover(from, to) {
      const answer = await rest(from.restPort, 'POST', '/switchover', { leader: from.name, candidate: to.name });
      if (answer.status !== 200) throw new Error(`switchover refused (${answer.status}): ${answer.text}`);
    },
    async crash(node) {
      const index = nodes.indexOf(node);
      const patroni = patronis[index] as Spawned;
      const pidFile = path.join((settings[index] as PatroniNodeSettings).dataDir, 'postmaster.pid');
      const postmaster = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      patroni.child.kill('SIGKILL');
      process.kill(postmaster, 'SIGKILL');
      await patroni.exited;
      await until(`${node.name}'s postmaster is gone`, async () => (alive(postmaster) ? undefined : true));
    },
    async restart(node) {
      const index = nodes.indexOf(node);
      patronis[index] = startPatroni(node.name);
    },
    async stallReplication(standby) {
      const sql = directSql(standby.url());
      try {
        const [row] = await sql<{ pid: number }[]>`select pid from pg_stat_wal_receiver`;
        if (!row) throw new Error(`${standby.name} has no WAL receiver`);
        process.kill(row.pid, 'SIGSTOP');
        return () => {
          if (alive(row.pid)) process.kill(row.pid, 'SIGCONT');
        };
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
    async stop() {
      await stopProcess(haproxy, 'SIGTERM', 3000).catch(() => {});
      // Patroni stops its PostgreSQL on SIGTERM; a bounded wait, then the hard way for whatever is left.
      await Promise.all(patronis.map((p) => stopProcess(p, 'SIGTERM', 20_000)));
      for (const s of settings) {
        try {
          const pid = Number(readFileSync(path.join(s.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
          if (pid > 0) process.kill(pid, 'SIGKILL');
        } catch {
          // not running
        }
      }
      await stopProcess(etcd, 'SIGTERM', 5000);
      if (!process.env.KEEP_PATRONI_DIR) rmSync(dir, { recursive: true, force: true });
    },
  };

  let haproxy: Spawned = { child: spawn('true'), exited: Promise.resolve() };
  try {
    await untilAccepting(etcdPort, 30_000);
    // The first node bootstraps the cluster; the second starts once a leader exists and clones it.
    patronis[0] = startPatroni('pg1');
    await until('pg1 bootstraps the cluster', async () => ((await cluster.leader()) ? true : undefined), 90_000);
    patronis[1] = startPatroni('pg2');
    const leader = await cluster.waitHealthy();
    haproxy = spawnLogged(HAPROXY, ['-db', '-f', haproxyFile], path.join(dir, 'haproxy.log'));
    await untilAccepting(haproxyPort, 10_000);
    await cluster.waitHaproxyOn(leader);
  } catch (error) {
    const logs = ['etcd', 'pg1', 'pg2', 'haproxy']
      .map((name) => {
        try {
          return `--- ${name}.log\n${readFileSync(path.join(dir, `${name}.log`), 'utf8').slice(-3000)}`;
        } catch {
          return '';
        }
      })
      .join('\n');
    await cluster.stop().catch(() => {});
    throw new Error(`the Patroni cluster did not start: ${(error as Error).message}\n${logs}`);
  }
  return cluster;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A short-lived connection straight to one node, for checks the test makes against the database itself. */
export function directSql(url: string): postgres.Sql {
  return postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 5 });
}
