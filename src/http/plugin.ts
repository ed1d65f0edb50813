// Infrastructure shared by every route (fastify-plugin, so it is not encapsulated): request ids, trusted proxy,
// security headers, access logs, the error envelope, 404/405 answers, and the one rule for request bodies' media
// types (body-media-type.ts). Only JSON bodies are parsed here; the form parser is registered by the modules that take
// forms (form-body.ts).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { secureRandomBytes } from '../crypto/primitives.ts';
import { enforceBodyMediaType } from './body-media-type.ts';
import { reportError, sendError } from './error-envelope.ts';
import { GatehouseError } from './errors.ts';
import { applySecurityHeaders } from './security-headers.ts';
import { requireForwardedAddress } from './trusted-proxy.ts';

export interface HttpOptions {
  trustedProxy: boolean;
  tls: boolean;
  /** Returns true once shutdown has begun; new requests then get 503 not_ready. */
  isClosing: () => boolean;
  /**
   * Answers an unknown address a browser navigated to with an HTML page (404) that has a way back, or returns
   * null to keep the JSON envelope (API paths, API clients). Given by the web module.
   */
  htmlNotFound?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | null>;
  /** Called once per answered request with the route pattern (null when no route matched); must stay cheap. */
  observe?: (method: string, route: string | null, status: number, seconds: number) => void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The client address: the X-Forwarded-For value in trusted-proxy mode, else the socket peer. */
    clientIp: string;
    /** The `error` of the envelope this request was answered with (sendError), for its log line; else null. */
    errorCode: string | null;
  }
}

export const newRequestId = () => secureRandomBytes(12).toString('base64url');

const METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

async function http(app: FastifyInstance, options: HttpOptions): Promise<void> {
  app.decorateRequest('clientIp', '');
  app.decorateRequest('errorCode', null);

  // A shadow router of every route, so an unknown method on a known path answers 405 with Allow.
  const shadow = FindMyWay();
  app.addHook('onRoute', (route) => {
    enforceBodyMediaType(route);
    for (const method of [route.method].flat()) {
      try {
        shadow.on(method as HTTPMethod, route.url ?? route.path, () => {});
      } catch {
        // duplicate registration (e.g. the automatic HEAD route): already known
      }
    }
  });

  // These three run for every request, so they take Fastify's callback form: an async hook costs a promise and a
  // microtask turn each. Errors go to done(), which answers with the error envelope.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400 (app.ts turns Node's own, bodiless one off).
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      done(new GatehouseError('invalid_request', 'The request needs a Host header'));
      return;
    }
    try {
      request.clientIp = options.trustedProxy
        ? requireForwardedAddress(request.headers['x-forwarded-for'])
        : (request.socket.remoteAddress ?? '');
    } catch (error) {
      done(error as Error);
      return;
    }
    if (options.isClosing()) done(new GatehouseError('not_ready', 'The service is shutting down'));
    else done();
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    applySecurityHeaders(reply, options.tls);
    done(null, payload);
  });

  app.addHook('onResponse', (request, reply, done) => {
    options.observe?.(request.method, request.routeOptions.url ?? null, reply.statusCode, reply.elapsedTime / 1000);
    // Path only: query strings can carry codes and tokens (SPEC.md Authentication 12). The envelope's error code
    // (never its description, which may quote input) says why a 4xx was refused; undefined keys are not written.
    request.log.info(
      {
        method: request.method,
        path: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ip: request.clientIp,
        error_code: request.errorCode ?? undefined,
      },
      'request',
    );
    done();
  });

  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((error, request, reply) => sendError(request, reply, reportError(request, error)));

  app.setNotFoundHandler(async (request: FastifyRequest, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    // A route for this very method that answered "not found" itself (e.g. a missing static file) is a 404, not a 405.
    const routed = shadow.find(request.method as HTTPMethod, path) !== null;
    const allowed = routed ? [] : METHODS.filter((m) => m !== request.method && shadow.find(m, path) !== null);
    if (allowed.length > 0) {
      return sendError(
        request,
        reply,
        new GatehouseError('method_not_allowed', undefined, { headers: { allow: allowed.join(', ') } }),
      );
    }
    return (await options.htmlNotFound?.(request, reply)) ?? sendError(request, reply, new GatehouseError('not_found'));
  });
}

export const httpPlugin = fp(http, { name: 'gatehouse-http', fastify: '5.x' });
