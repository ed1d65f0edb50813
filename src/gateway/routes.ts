// The gateway's Fastify plugin (docs/gateway.md): every method on route_prefix and below is normalised, matched to a
// route policy, checked, and streamed to the upstream with @fastify/reply-from (undici, pooled keep-alive). Its own
// body parser hands the request stream through untouched; WebSocket handshakes go through upgrade.ts.
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReplyFromHooks } from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HTTP_METHODS } from '../config/schema.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import type { Principal } from './access.ts';
import { BodyTooLarge, limitedBody } from './body-limit.ts';
import { type DecisionDeps, decide, type GatewayRequest } from './decision.ts';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './headers.ts';
import type { HeaderFilter } from './identity-headers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who a gateway request is forwarded as (null on unprotected routes), set once the request is allowed. */
    gatewayPrincipal: Principal | null;
    /** The Authorization header the upstream gets instead of the client's (an exchanged token), or null. */
    gatewayAuthorization: string | null;
  }
}

export interface GatewayUpstream {
  /** e.g. http://127.0.0.1:18080 */
  origin: string;
  timeoutSeconds: number;
}

export interface GatewayRouteDeps extends DecisionDeps {
  /** Client headers never forwarded (identity-headers.ts). */
  strippedHeaders: HeaderFilter;
  upstream: GatewayUpstream;
  /** Route prefix as configured (its case), under which the routes are registered. */
  routePrefix: string;
  bodyLimitBytes: number;
}

export async function gatewayRoutes(app: FastifyInstance, deps: GatewayRouteDeps): Promise<void> {
  // reply-from and undici (about 30 MB resident) load only in a node that runs the gateway.
  const { default: replyFrom } = await import('@fastify/reply-from');
  await app.register(replyFrom, {
    base: deps.upstream.origin,
    disableRequestLogging: true,
    undici: {
      connections: 128,
      pipelining: 1,
      headersTimeout: deps.upstream.timeoutSeconds * 1000,
      bodyTimeout: deps.upstream.timeoutSeconds * 1000,
    },
  });

  // Bodies stream through to the upstream whatever their type; nothing is parsed or buffered here.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (request, payload, done) => {
    try {
      done(null, limitedBody(payload, request.headers, deps.bodyLimitBytes));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  const onError = (
    reply: { send(payload: unknown): unknown },
    { error }: { error: Error & { statusCode?: number } },
  ) => {
    const tooLarge = error instanceof BodyTooLarge || error.cause instanceof BodyTooLarge;
    const code = tooLarge
      ? 'payload_too_large'
      : error.statusCode === 504
        ? 'upstream_timeout'
        : 'upstream_unavailable';
    reply.send(new GatehouseError(code, undefined, { cause: error }));
  };

  // One options object for every request (no closures per request): what differs per request, the principal, is
  // read back from the request.
  const fromOptions: FastifyReplyFromHooks = {
    rewriteRequestHeaders: (request, headers) =>
      upstreamRequestHeaders(headers as IncomingHttpHeaders, {
        clientIp: request.clientIp,
        requestId: request.id,
        principal: request.gatewayPrincipal,
        stripped: deps.strippedHeaders,
        authorization: request.gatewayAuthorization,
      }) as IncomingHttpHeaders,
    rewriteHeaders: (headers) => downstreamResponseHeaders(headers as IncomingHttpHeaders) as IncomingHttpHeaders,
    onError,
    // Never retried: reply-from would repeat a GET answered 503 up to ten times, holding the client meanwhile; the
    // upstream's answer, 503 and Retry-After included, is the client's to act on.
    retryDelay: () => null,
  };
  app.decorateRequest('gatewayPrincipal', null);
  app.decorateRequest('gatewayAuthorization', null);
  // A request the gateway cannot judge (ambiguous path, repeated Host...) is worth a line of its own: it is rarely an
  // honest client. The path only, as in the access log: a query string can carry secrets.
  app.addHook('onError', async (request, _reply, error) => {
    if (error instanceof InvalidRequest)
      request.log.warn({ path: request.url.split('?')[0], reason: error.message }, 'gateway refused a request');
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const attempt = { requestId: request.id, clientIp: request.clientIp };
    const { forwardPath, principal, authorization } = await decide(deps, request.raw as GatewayRequest, attempt);
    request.gatewayPrincipal = principal;
    request.gatewayAuthorization = authorization;
    return reply.from(forwardPath, fromOptions);
  };
  const prefix = deps.routePrefix.replace(/\/$/, '');
  // Hidden from the OpenAPI document: these paths come from configuration, not from Gatehouse's contract.
  for (const url of [prefix, `${prefix}/*`])
    app.route({
      method: [...HTTP_METHODS],
      url,
      schema: { hide: true },
      bodyLimit: Math.max(1, deps.bodyLimitBytes),
      handler,
    });
}
