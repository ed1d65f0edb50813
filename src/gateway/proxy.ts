// The built-in gateway's data path (docs/gateway.md, docs/decisions.md "The gateway's raw data path"): every method
// on route_prefix and below is judged by decide() and streamed to the upstream through one undici pool, from the raw
// node:http request, ahead of Fastify (front.ts). A profile of the Fastify + reply-from path put most of a proxied
// request's CPU in the framework's lifecycle, reply-from's per-request work and header copies; this path does only
// what a proxied request needs: the decision, one pass over the headers each way, and the pool's stream. Bodies are
// never parsed or buffered; WebSocket handshakes go through upgrade.ts.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Dispatcher, Pool } from 'undici';
import { HTTP_METHODS } from '../config/schema.ts';
import { GatehouseError } from '../http/errors.ts';
import { BodyTooLarge, limitedBody } from './body-limit.ts';
import { type DecisionDeps, decide } from './decision.ts';
import type { FrontContext, FrontHandler } from './front.ts';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './headers.ts';
import type { HeaderFilter } from './identity-headers.ts';

export interface GatewayUpstream {
  /** e.g. http://127.0.0.1:18080 */
  origin: string;
  timeoutSeconds: number;
}

export interface GatewayRouteDeps extends DecisionDeps {
  /** Client headers never forwarded (identity-headers.ts). */
  strippedHeaders: HeaderFilter;
  upstream: GatewayUpstream;
  /** Route prefix as configured (its case): paths under it, by whole segments, are the gateway's. */
  routePrefix: string;
  bodyLimitBytes: number;
}

const METHODS = new Set<string>(HTTP_METHODS);

/** Whether the request carries a body (RFC 9112 §6.3): a Content-Length above 0, or Transfer-Encoding. */
const hasBody = (headers: IncomingHttpHeaders) =>
  headers['transfer-encoding'] !== undefined ||
  (headers['content-length'] !== undefined && headers['content-length'] !== '0');

/** What the client gets for a failed upstream exchange (the answer has not started). */
function upstreamFailure(error: Error & { code?: string; cause?: unknown }): GatehouseError {
  if (error instanceof BodyTooLarge || error.cause instanceof BodyTooLarge)
    return new GatehouseError('payload_too_large', undefined, { cause: error });
  if (error.code === 'UND_ERR_HEADERS_TIMEOUT' || error.code === 'UND_ERR_BODY_TIMEOUT')
    return new GatehouseError('upstream_timeout', undefined, { cause: error });
  return new GatehouseError('upstream_unavailable', undefined, { cause: error });
}

/**
 * The upstream's response headers as the client gets them: hop-by-hop and Gatehouse's own cookies removed
 * (headers.ts), then the security headers every answer of the service carries (http/security-headers.ts): the
 * upstream's Cache-Control and Content-Security-Policy are kept when it sends them.
 */
function answerHeaders(upstream: IncomingHttpHeaders, context: FrontContext, tls: boolean): OutgoingHttpHeaders {
  const headers = downstreamResponseHeaders(upstream);
  headers['x-content-type-options'] = 'nosniff';
  headers['referrer-policy'] = 'no-referrer';
  headers['x-frame-options'] = 'DENY';
  headers['content-security-policy'] ??= "default-src 'none'; frame-ancestors 'none'";
  headers['cache-control'] ??= 'no-store';
  if (headers['cache-control'] === 'no-store') headers.pragma ??= 'no-cache';
  if (tls) headers['strict-transport-security'] = 'max-age=63072000; includeSubDomains';
  headers['x-request-id'] = context.requestId;
  return headers;
}

/** Streams the upstream's answer into the client's response: the factory undici calls once the head arrives. */
interface Opaque {
  response: ServerResponse;
  context: FrontContext;
  tls: boolean;
}

function intoResponse({ statusCode, headers, opaque }: Dispatcher.StreamFactoryData<Opaque>): ServerResponse {
  const { response, context, tls } = opaque;
  response.writeHead(statusCode, answerHeaders(headers as IncomingHttpHeaders, context, tls));
  return response;
}

export async function gatewayProxyHandler(deps: GatewayRouteDeps, tls: boolean): Promise<FrontHandler> {
  // undici (with the rest of the proxy) loads only in a node that runs the gateway.
  const { Pool: UndiciPool } = await import('undici');
  const { origin, timeoutSeconds } = deps.upstream;
  const pool: Pool = new UndiciPool(origin, {
    connections: 128,
    pipelining: 1,
    headersTimeout: timeoutSeconds * 1000,
    bodyTimeout: timeoutSeconds * 1000,
  });
  const host = new URL(origin).host;
  const prefix = deps.routePrefix.replace(/\/$/, '');
  const underPrefix = (url: string) =>
    url.startsWith(prefix) &&
    (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');

  return {
    // The route labels Fastify's routes had, so the request metrics keep their series.
    route: (url) => (url.length === prefix.length || url[prefix.length] === '?' ? prefix : `${prefix}/*`),
    // Other methods are not the gateway's: Fastify answers them (404, or 405 with Allow).
    matches: (url, method) => METHODS.has(method) && underPrefix(url),
    close: () => pool.close(),
    async handle(request: IncomingMessage, response: ServerResponse, context: FrontContext) {
      const url = request.url as string;
      const method = request.method as Dispatcher.HttpMethod;
      const decision = await decide(deps, request as IncomingMessage & { url: string; method: string }, {
        requestId: context.requestId,
        clientIp: context.clientIp,
      });
      const headers = upstreamRequestHeaders(request.headers, {
        clientIp: context.clientIp,
        requestId: context.requestId,
        principal: decision.principal,
        stripped: deps.strippedHeaders,
        authorization: decision.authorization,
      });
      headers.host = host;
      // Node has already answered 100-continue; the upstream gets the body without the expectation.
      delete headers.expect;
      let body: IncomingMessage | ReturnType<typeof limitedBody> | null = null;
      if (method !== 'GET' && method !== 'HEAD' && hasBody(request.headers))
        body = limitedBody(request, request.headers, deps.bodyLimitBytes);
      else {
        // A body on GET or HEAD has no defined meaning (RFC 9110 §9.3.1): never forwarded, and read and dropped (by
        // Node, once the answer is sent).
        delete headers['content-length'];
      }
      const query = url.indexOf('?');
      // A client that leaves before the answer is complete takes the upstream request with it.
      const abort = new AbortController();
      response.once('close', () => {
        if (!response.writableFinished) abort.abort();
      });
      try {
        await pool.stream<Opaque>(
          {
            path: query < 0 ? decision.forwardPath : decision.forwardPath + url.slice(query),
            method,
            headers: headers as Record<string, string | string[]>,
            body,
            signal: abort.signal,
            opaque: { response, context, tls },
          },
          intoResponse,
        );
      } catch (error) {
        if (abort.signal.aborted) return;
        // An answer already under way cannot become an envelope: the connection is cut, as reply-from did.
        if (response.headersSent) {
          response.destroy();
          return;
        }
        throw upstreamFailure(error as Error);
      }
    },
  };
}
