// tls.mode = "acme": the plain-HTTP listener (tls.acme_http_listen, port 80 in production) where the certificate
// authority fetches HTTP-01 responses (RFC 8555 §8.3). It answers challenge tokens from PostgreSQL, so any node can
// answer for an order another node placed, and sends every other request to the HTTPS issuer with a 301. It is a
// bare node:http server: one route, no sessions, no bodies, nothing to share with the Fastify app.
import type { Server } from 'node:http';
import type { Sql } from '../db/pool.ts';
import { nodeHttp } from '../http/node-http.ts';
import { findChallenge } from './challenge-store.ts';

const CHALLENGE_PATH = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]{1,256})$/;

export interface ChallengeListener {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startChallengeListener(
  sql: Sql,
  issuer: string,
  listen: { host: string; port: number },
  clock: () => Date,
  log: { warn(obj: object, msg: string): void },
): Promise<ChallengeListener> {
  const origin = new URL(issuer).origin;
  const server = nodeHttp.createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const token = request.method === 'GET' ? CHALLENGE_PATH.exec(path)?.[1] : undefined;
    if (token === undefined) {
      response.writeHead(301, { location: `${origin}${path}`, 'cache-control': 'no-store' }).end();
      return;
    }
    findChallenge(sql, token, clock()).then(
      (keyAuthorization) => {
        if (keyAuthorization === null) response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        else response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(keyAuthorization);
      },
      (error: unknown) => {
        log.warn({ error: (error as Error).message }, 'ACME challenge lookup failed');
        response.writeHead(503, { 'content-type': 'text/plain' }).end('unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
