// Debian's HAProxy (apt-get install haproxy) in front of Gatehouse nodes, started by the test with a config file and
// port of its own. It replaces any X-Forwarded-For the client sent with the client's address (`option forwardfor`
// after deleting the header), which is what server.trusted_proxy = true expects of the proxy. Health checks send the
// header too, since a trusted-proxy node refuses requests without it.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';

export const HAPROXY = '/usr/sbin/haproxy';

export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

/** Resolves once something accepts TCP connections on the port; rejects at the deadline. */
export async function untilAccepting(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts connections on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface LoadBalancer {
  url: string;
  stop(): Promise<void>;
}

/** What the balancer answers, in Gatehouse's error envelope, when no node is ready (all fail /health/ready). */
export const BALANCER_UNAVAILABLE = 'No Gatehouse node is ready right now; retry shortly.';

/**
 * HAProxy lines for the frontend that make the balancer's own 503 Gatehouse's envelope: while a database
 * failover takes every node's readiness away at once, HAProxy has no server and would answer with its HTML page,
 * which a client reading the envelope cannot parse. The request id is the balancer's, in the body and the header
 * as Gatehouse gives its own. docs/scaling.md quotes these lines (test/scaling-doc.test.ts).
 */
export function balancerUnavailableLines(): string[] {
  const body = JSON.stringify({
    error: 'temporarily_unavailable',
    error_description: BALANCER_UNAVAILABLE,
    request_id: '%[var(txn.request_id)]',
  });
  return [
    '  http-request set-var(txn.request_id) uuid',
    `  http-error status 503 content-type "application/json; charset=utf-8" lf-string '${body}' hdr Retry-After 2 hdr Cache-Control no-store hdr X-Request-Id "%[var(txn.request_id)]"`,
  ];
}

export async function startHaproxy(dir: string, backends: string[]): Promise<LoadBalancer> {
  const port = await freePort();
  const servers = backends.map((backend, i) => {
    const { hostname, port: backendPort } = new URL(backend);
    // A node that stops answering leaves the rotation within about a second; a request that could not connect is
    // sent to another node (retry-on conn-failure + redispatch). A request a node died with is not sent again: it may
    // have committed, so the client gets 502 and decides.
    return `  server node${i + 1} ${hostname}:${backendPort} check inter 300ms fall 3 rise 1`;
  });
  const config = [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    // A busy node answers its health check late; only a refused or silent one should leave the rotation.
    '  timeout check 3s',
    '  retries 3',
    '  option redispatch',
    '  retry-on conn-failure',
    'frontend gatehouse',
    `  bind 127.0.0.1:${port}`,
    '  http-request del-header x-forwarded-for',
    '  option forwardfor',
    ...balancerUnavailableLines(),
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    '  option httpchk',
    '  http-check send meth GET uri /health/ready hdr X-Forwarded-For 127.0.0.1',
    ...servers,
    '',
  ].join('\n');
  const file = path.join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  // -db: stay in the foreground (the test owns the process); -W would add a master process we do not need.
  const child: ChildProcess = spawn(HAPROXY, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await Promise.race([
    untilAccepting(port),
    exited.then(() => {
      throw new Error(`haproxy exited: ${stderr}`);
    }),
  ]);
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(force);
    },
  };
}
