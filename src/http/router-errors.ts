// Fastify's `frameworkErrors`: what its router refuses before any route, hook or not-found handler runs (a path
// parameter over the router's length limit, a path that is not valid percent-encoding, a failing async constraint).
// Fastify's own answer quotes the path and has no request id; this one is the envelope. No hook runs for these
// requests, so the request id header, the security headers and the access line are written here.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { sendError, toGatehouseError } from './error-envelope.ts';
import { applySecurityHeaders } from './security-headers.ts';

export function routerErrorHandler(tls: boolean) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const mapped = toGatehouseError(error);
    reply.header('x-request-id', request.id);
    applySecurityHeaders(reply, tls);
    sendError(request, reply, mapped);
    // No path: it is the very input that was refused, and may be long or carry a secret.
    request.log.info(
      { method: request.method, status: mapped.status, fastify_code: error.code, ip: request.socket.remoteAddress },
      'request refused by the router',
    );
  };
}
