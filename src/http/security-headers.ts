// Headers on every response. API responses default to no-store (SPEC.md Authentication 11) and a CSP that allows
// nothing; routes that serve cacheable public documents (discovery, JWKS) or pages set their own values.
import type { FastifyReply } from 'fastify';

export function applySecurityHeaders(reply: FastifyReply, tls: boolean): void {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  if (!reply.hasHeader('content-security-policy'))
    reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  // RFC 6749 §5.1 asks for Pragma beside no-store on token responses, which set Cache-Control themselves, as do
  // error envelopes; every no-store answer gets it.
  if (reply.getHeader('cache-control') === 'no-store' && !reply.hasHeader('pragma')) reply.header('pragma', 'no-cache');
  if (tls) reply.header('strict-transport-security', 'max-age=63072000; includeSubDomains');
}

/**
 * What applySecurityHeaders sets on an error envelope, for an answer written straight on the socket (client-error.ts),
 * where no reply exists.
 */
export function rawResponseHeaders(tls: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cache-control': 'no-store',
    pragma: 'no-cache',
  };
  if (tls) headers['strict-transport-security'] = 'max-age=63072000; includeSubDomains';
  return headers;
}
