// WebSocket (RFC 6455 §4) through the gateway. Fastify routes never see an HTTP/1.1 Upgrade request (Node hands it
// to the server's 'upgrade' event), and @fastify/reply-from does not proxy upgrades, so this small node:http proxy
// does: the handshake goes through exactly the checks of an ordinary request (decide()), then the two sockets are
// joined. A refusal is written on the raw socket as the usual envelope, and the connection closed.
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { toGatehouseError } from '../http/error-envelope.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { nodeHttp } from '../http/node-http.ts';
import { newRequestId } from '../http/plugin.ts';
import { requireForwardedAddress } from '../http/trusted-proxy.ts';
import { decide } from './decision.ts';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './headers.ts';
import type { GatewayRouteDeps } from './proxy.ts';

export interface UpgradeDeps extends GatewayRouteDeps {
  trustedProxy: boolean;
  isClosing: () => boolean;
}

function headerBlock(statusLine: string, headers: OutgoingHttpHeaders): string {
  let block = `${statusLine}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) block += `${name}: ${one}\r\n`;
  }
  return `${block}\r\n`;
}

function writeRefusal(socket: Duplex, requestId: string, error: GatehouseError): void {
  const body = JSON.stringify({ error: error.code, error_description: error.publicDescription, request_id: requestId });
  const headers = {
    ...error.headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-request-id': requestId,
    connection: 'close',
  };
  // Closed once written: a client that ignores the refusal cannot keep the socket.
  socket.end(headerBlock(`HTTP/1.1 ${error.status} ${nodeHttp.STATUS_CODES[error.status] ?? ''}`, headers) + body, () =>
    socket.destroy(),
  );
}

function join(client: Duplex, upstream: Duplex, open: Set<Duplex>): void {
  open.add(client);
  const close = () => {
    open.delete(client);
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close).on('close', close);
  upstream.on('error', close).on('close', close);
  client.pipe(upstream).pipe(client);
}

export function handleUpgrades(app: FastifyInstance, deps: UpgradeDeps): void {
  // As the HTTP routes: the prefix as configured, by whole segments (find-my-way routes by exact case).
  const prefix = deps.routePrefix.replace(/\/$/, '');
  const underGateway = (url: string) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`);
  const { origin, timeoutSeconds } = deps.upstream;
  const transport = origin.startsWith('https:') ? https : nodeHttp;
  // Joined sockets have left the HTTP server's bookkeeping, so shutdown ends them here.
  const open = new Set<Duplex>();
  app.addHook('onClose', (_instance, done) => {
    for (const socket of open) socket.destroy();
    done();
  });

  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const requestId = newRequestId();
    const started = performance.now();
    socket.on('error', () => socket.destroy());
    const refuse = (error: unknown) => {
      const mapped = toGatehouseError(error);
      if (mapped.status >= 500) app.log.warn({ err: error, reqId: requestId }, 'websocket upgrade failed');
      else if (error instanceof InvalidRequest)
        app.log.warn(
          { reqId: requestId, path: request.url?.split('?')[0], reason: error.message },
          'gateway refused a request',
        );
      writeRefusal(socket, requestId, mapped);
      log(mapped.status);
    };
    const log = (status: number) =>
      app.log.info(
        {
          reqId: requestId,
          method: request.method,
          path: request.url?.split('?')[0],
          status,
          upgrade: true,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    void (async () => {
      if (deps.isClosing()) throw new GatehouseError('not_ready', 'The service is shutting down');
      const clientIp = deps.trustedProxy
        ? requireForwardedAddress(request.headers['x-forwarded-for'])
        : ((socket as Duplex & { remoteAddress?: string }).remoteAddress ?? '');
      const url = request.url ?? '/';
      if (!underGateway(url)) throw new GatehouseError('not_found');
      const method = request.method ?? 'GET';
      const decision = await decide(
        deps,
        { method, url, headers: request.headers, rawHeaders: request.rawHeaders },
        { requestId, clientIp },
      );
      const query = url.indexOf('?');
      const headers = upstreamRequestHeaders(request.headers, {
        clientIp,
        requestId,
        principal: decision.principal,
        upgrade: true,
        stripped: deps.strippedHeaders,
        authorization: decision.authorization,
      });
      headers.host = new URL(origin).host;
      const upstreamRequest = transport.request(
        `${origin}${decision.forwardPath}${query < 0 ? '' : url.slice(query)}`,
        // A connection of its own: an upgraded socket never returns to a pool.
        { method, headers, timeout: timeoutSeconds * 1000, agent: false },
      );
      // A client that leaves before the upstream answers takes the upstream request with it.
      socket.once('close', () => upstreamRequest.destroy());
      upstreamRequest.on('upgrade', (response, upstreamSocket, upstreamHead) => {
        const answer = {
          ...downstreamResponseHeaders(response.headers),
          'x-request-id': requestId,
          connection: 'Upgrade',
          upgrade: response.headers.upgrade,
        };
        socket.write(headerBlock(`HTTP/1.1 101 ${response.statusMessage ?? 'Switching Protocols'}`, answer));
        if (upstreamHead.length > 0) socket.write(upstreamHead);
        if (head.length > 0) upstreamSocket.write(head);
        upstreamSocket.setTimeout(0);
        join(socket, upstreamSocket, open);
        log(101);
      });
      // The upstream declined the upgrade: its answer goes back as it is, and the connection ends.
      upstreamRequest.on('response', (response) => {
        const status = response.statusCode ?? 502;
        const answer = {
          ...downstreamResponseHeaders(response.headers),
          'x-request-id': requestId,
          connection: 'close',
        };
        socket.write(headerBlock(`HTTP/1.1 ${status} ${response.statusMessage ?? ''}`, answer));
        response.pipe(socket);
        log(status);
      });
      upstreamRequest.on('timeout', () => upstreamRequest.destroy(new GatehouseError('upstream_timeout')));
      upstreamRequest.on('error', (error) =>
        refuse(
          error instanceof GatehouseError
            ? error
            : new GatehouseError('upstream_unavailable', undefined, { cause: error }),
        ),
      );
      upstreamRequest.end();
    })().catch(refuse);
  });
}
