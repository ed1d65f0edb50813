// A real product upstream for gateway tests: a node:http server that answers every request with what it received
// (method, URL, headers, body size) and keeps a log of them, so a test can prove a refused request never arrived.
// WebSocket handshakes are accepted by a real `ws` server that greets with the identity it was told and echoes.
import assert from 'node:assert/strict';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { WebSocketServer } from 'ws';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Raw header names in the order received, to count repeated ones (X-Forwarded-For exactly once). */
  rawHeaderNames: string[];
  bodyBytes: number;
}

export interface Upstream {
  port: number;
  received: Received[];
  /** Paths ending in /hang get no answer until the test ends, /busy a 503, /stream a body in two chunks. */
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((request, response) => {
    let bodyBytes = 0;
    request.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
    });
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        rawHeaderNames: request.rawHeaders.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()),
        bodyBytes,
      };
      received.push(entry);
      if (request.url?.endsWith('/hang')) {
        hanging.add(response);
        return;
      }
      if (request.url?.endsWith('/busy')) {
        response.writeHead(503, { 'retry-after': '0', 'content-type': 'text/plain' });
        response.end('busy');
        return;
      }
      if (request.url?.endsWith('/stream')) {
        // Two chunks with a pause: the client must see the first before the second exists.
        response.writeHead(200, { 'content-type': 'text/plain', connection: 'keep-alive', 'keep-alive': 'timeout=5' });
        response.write('first,');
        setImmediate(() => response.end('second'));
        return;
      }
      response.writeHead(200, {
        'content-type': 'application/json',
        'set-cookie': ['gatehouse_session=planted; Path=/', 'product=1; Path=/app'],
        'x-upstream': 'yes',
      });
      response.end(JSON.stringify(entry));
    });
  });
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request, socket, head) => {
    received.push({
      method: request.method ?? '',
      url: request.url ?? '',
      headers: request.headers,
      rawHeaderNames: [],
      bodyBytes: 0,
    });
    sockets.handleUpgrade(request, socket, head, (ws) => {
      ws.send(`hello ${request.headers['x-gatehouse-subject'] ?? 'nobody'}`);
      ws.on('message', (data) => ws.send(`echo ${data.toString()}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    for (const response of hanging) response.destroy();
    for (const client of sockets.clients) client.terminate();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  after(close);
  return { port: (server.address() as AddressInfo).port, received, close };
}

/** A port nothing listens on: a server is opened on it, then closed. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(port > 0);
  return port;
}
