// The floor under the forward-auth decision: a node:http server that answers every request with the decision's own
// 200 (the same header lines, given as JSON in its argument) and does nothing else: no routing, no checks, no ids,
// no log line, no metrics. What it costs per request is what Node's HTTP server spends reading a question and writing
// that answer, before Gatehouse decides anything. Prints its own port on stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const answer = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const server = http.createServer((request, response) => {
  // A question has no body; whatever comes is read and dropped, as the decision endpoint does.
  request.resume();
  response.writeHead(200, answer);
  response.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
