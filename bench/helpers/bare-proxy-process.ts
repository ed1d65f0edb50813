// The floor under the gateway scenario: the least a Node reverse proxy can do, node:http in and an undici pool out,
// streaming both ways with no checks, no header rewriting and no framework. What it costs per request is what any
// Node proxy pays for the two extra loopback hops, before Gatehouse does anything of its own. Takes the upstream's
// port as its argument; prints its own port on stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Pool } from 'undici';

const pool = new Pool(`http://127.0.0.1:${process.argv[2]}`, { connections: 128, pipelining: 1 });
const server = http.createServer((request, response) => {
  pool
    .request({
      method: request.method as 'GET',
      path: request.url ?? '/',
      headers: request.headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? null : request,
    })
    .then(async (upstream) => {
      response.writeHead(upstream.statusCode, upstream.headers);
      await pipeline(upstream.body, response);
    })
    .catch(() => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
