// The product upstream of the gateway scenario, in a process of its own so it shares no event loop with the
// gateway or the load generator: every request gets the same small JSON answer. Prints its port on stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({ orders: [{ id: 1, total: 42 }] });
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
