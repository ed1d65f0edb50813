// The gateway's raw data path (docs/decisions.md "The gateway's raw data path"): requests for the forward-auth
// endpoint (and the proxied prefix, proxy.ts) are answered by a plain node:http handler placed ahead of Fastify on the
// same server, since Fastify's lifecycle (routing, hooks, reply objects, serializers) cost more than the decision
// itself. This handler does, in a few lines, what http/plugin.ts does for every other route: the request id, the
// Host rule, the client address (server.trusted_proxy), 503 while closing, the security headers, the error envelope,
// the access log line and the request metrics. Every other request is handed to Fastify untouched.
import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import { toGatehouseError } from '../http/error-envelope.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { rawResponseHeaders } from '../http/security-headers.ts';
import { requireForwardedAddress } from '../http/trusted-proxy.ts';
import { requestIdSource } from './request-ids.ts';

export interface FrontDeps {
  tls: boolean;
  trustedProxy: boolean;
  isClosing: () => boolean;
  log: FastifyBaseLogger;
  /** The request metrics (http/plugin.ts observe): method, route pattern, status, seconds. */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
}

/** What the front has settled about a request before a handler sees it. */
export interface FrontContext {
  requestId: string;
  clientIp: string;
  /** Security headers every answer carries (no-store by default), with the request id; handlers copy and amend. */
  baseHeaders: OutgoingHttpHeaders;
  /** The envelope's error code an answer was refused with, for the access log line. */
  errorCode?: string;
  /** The path a "gateway refused a request" line names (never the query): the URL's, or the one judged. */
  judgedPath?: string;
}

export interface FrontHandler {
  /** The route label of the request metrics for a request target, e.g. /auth/forward. */
  route(url: string): string;
  /** Whether a request (its raw target, as received) is this handler's. Must be cheap: it runs for every request. */
  matches(url: string, method: string): boolean;
  /** Releases what the handler holds (connection pools) when the app closes. */
  close?(): Promise<void>;
  /** Answers the request; throws a refusal (written as the error envelope). */
  handle(request: IncomingMessage, response: ServerResponse, context: FrontContext): Promise<void>;
}

/** The levels that drop the access log's info lines. */
const QUIETER_THAN_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
};

/** The usual envelope, written on a raw response (http/error-envelope.ts sendError is its Fastify twin). */
export function writeRefusal(response: ServerResponse, context: FrontContext, error: GatehouseError): void {
  context.errorCode = error.code;
  if (response.headersSent) {
    response.destroy(error);
    return;
  }
  const body = JSON.stringify({
    error: error.code,
    error_description: error.publicDescription,
    request_id: context.requestId,
  });
  response.writeHead(error.status, {
    ...context.baseHeaders,
    ...error.headers,
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}

/**
 * Puts `handlers` ahead of the Fastify app on its own server: the server's request listener (Fastify's) is kept and
 * called for every request no handler matches.
 */
export function installFront(server: Server, deps: FrontDeps, handlers: readonly FrontHandler[]): void {
  if (handlers.length === 0) return;
  const fastify = server.listeners('request') as ((request: IncomingMessage, response: ServerResponse) => void)[];
  server.removeAllListeners('request');
  const nextId = requestIdSource();
  const security = rawResponseHeaders(deps.tls);

  const answer = (handler: FrontHandler, request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    const requestId = nextId();
    const context: FrontContext = { requestId, clientIp: '', baseHeaders: { ...security, 'x-request-id': requestId } };
    response.once('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      deps.observe?.(request.method ?? 'GET', handler.route(request.url ?? '/'), response.statusCode, seconds);
      // The line's object is not even built when the level drops it (logging.level = "warn" on busy nodes).
      if (!QUIETER_THAN_INFO.has(deps.log.level))
        deps.log.info(
          {
            reqId: requestId,
            method: request.method,
            path: pathOf(request.url ?? '/'),
            status: response.statusCode,
            ms: Math.round(seconds * 1000),
            ip: context.clientIp,
            error_code: context.errorCode,
          },
          'request',
        );
    });
    const refuse = (error: unknown) => {
      const mapped = toGatehouseError(error);
      if (mapped.status >= 500) deps.log.error({ err: error, reqId: requestId }, 'request failed');
      else if (error instanceof InvalidRequest)
        deps.log.warn(
          { reqId: requestId, path: context.judgedPath ?? pathOf(request.url ?? '/'), reason: error.message },
          'gateway refused a request',
        );
      writeRefusal(response, context, mapped);
    };
    try {
      // RFC 9112 §3.2, as http/plugin.ts: an HTTP/1.1 request without Host is refused.
      if (request.headers.host === undefined && request.httpVersion === '1.1')
        throw new InvalidRequest('The request needs a Host header');
      context.clientIp = deps.trustedProxy
        ? requireForwardedAddress(request.headers['x-forwarded-for'])
        : (request.socket.remoteAddress ?? '');
      if (deps.isClosing()) throw new GatehouseError('not_ready', 'The service is shutting down');
    } catch (error) {
      request.resume();
      refuse(error);
      return;
    }
    handler.handle(request, response, context).catch(refuse);
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = request.url ?? '/';
    const method = request.method ?? 'GET';
    for (const handler of handlers)
      if (handler.matches(url, method)) {
        answer(handler, request, response);
        return;
      }
    for (const listener of fastify) listener.call(server, request, response);
  });
}
