// DESIGN.md "CSRF": a cookie-authenticated state change must come from our own origin. JSON endpoints also require
// a JSON body (a cross-site form cannot send one without a CORS preflight we never grant); the few HTML forms
// (consent, sign-out) are checked by origin alone; a sign-out POST from elsewhere is not refused but counts as no
// confirmation (src/oauth/endpoints-routes.ts). A body of another type is answered 415 before the origin is
// looked at (docs/decisions.md "Foundation and identity leftovers"): either way nothing changes.
import type { FastifyRequest } from 'fastify';
import { acceptsNoBody, carriesBody } from './body-media-type.ts';
import { GatehouseError } from './errors.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The Origin header when the browser gave a real one; otherwise Sec-Fetch-Site, which browsers set and pages
 * cannot. A page served with Referrer-Policy: no-referrer makes Chromium send `Origin: null` on form posts, so
 * "null" counts as absent rather than as a foreign origin.
 */
export function isSameOrigin(request: FastifyRequest, issuerOrigin: string): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null') return origin === issuerOrigin;
  return request.headers['sec-fetch-site'] === 'same-origin';
}

export function assertSameOriginForm(request: FastifyRequest, issuerOrigin: string, what: string): void {
  if (!isSameOrigin(request, issuerOrigin))
    throw new GatehouseError('csrf_rejected', `${what} must be posted from this origin`);
}

export function assertSameOriginJson(request: FastifyRequest, issuerOrigin: string): void {
  if (SAFE_METHODS.has(request.method)) return;
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  // The catalogue's text, so the answer is the same whether this check or the body parser refuses the request. On an
  // operation whose body is optional, a request that sends nothing (no body, no type) is let through, as
  // body-media-type.ts lets it: the origin alone decides it, and a cross-site page cannot send one without Origin.
  const sendsNothing =
    request.headers['content-type'] === undefined &&
    !carriesBody(request.headers) &&
    acceptsNoBody(request.routeOptions?.schema?.body);
  if (contentType !== 'application/json' && !sendsNothing) throw new GatehouseError('unsupported_media_type');
  if (!isSameOrigin(request, issuerOrigin)) {
    const absent = request.headers.origin === undefined || request.headers.origin === 'null';
    throw new GatehouseError(
      'csrf_rejected',
      absent ? 'The request must carry a same-origin Origin header' : 'The request came from another origin',
    );
  }
}
