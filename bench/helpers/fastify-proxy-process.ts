// The framework's share under the gateway scenario: Fastify and @fastify/reply-from as the gateway configures them
// (undici pool, keep-alive) proxying every path to the upstream, with no logger, hooks, checks or header rewriting.
// Between the bare Node proxy and the gateway it separates what the framework costs from what Gatehouse adds. Takes
// the upstream's port as its argument; prints its own port on stdout.
import type { AddressInfo } from 'node:net';
import replyFrom from '@fastify/reply-from';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
await app.register(replyFrom, {
  base: `http://127.0.0.1:${process.argv[2]}`,
  undici: { connections: 128, pipelining: 1 },
});
app.get('/*', (_request, reply) => reply.from());
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${(app.server.address() as AddressInfo).port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
