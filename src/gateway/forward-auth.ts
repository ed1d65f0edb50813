// Forward auth (docs/gateway.md "Forward auth"): a native proxy in front of the upstream (nginx auth_request,
// HAProxy, Traefik ForwardAuth, Caddy forward_auth) asks before it forwards each request, and carries the bytes
// itself. The request it describes is judged by decide() (decision.ts), the very function the built-in gateway
// calls, so both apply one set of path rules and route policies. 200 carries the X-Gatehouse-* identity headers for
// the proxy to copy onto the upstream request; a refusal is the gateway's own (401/403 with WWW-Authenticate...).
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { HTTP_METHODS } from '../config/schema.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { type DecisionDeps, decide, type GatewayDecision } from './decision.ts';
import type { FrontContext, FrontHandler } from './front.ts';
import { addIdentityHeaders } from './headers.ts';

export const FORWARD_AUTH_PATH = '/auth/forward';

export interface ForwardAuthDeps extends DecisionDeps {
  /** gateway.forward_auth_cache_seconds: the longest max-age of an allowed answer. */
  cacheSeconds: number;
  /** gateway.forward_auth_callers, as a test of the connection's peer address. */
  isCaller: (peer: string | undefined) => boolean;
  clock: () => Date;
}

const METHODS = new Set<string>(HTTP_METHODS);

/** The two conventions: nginx auth_request and HAProxy (X-Original-*), Traefik and Caddy (X-Forwarded-*). */
const CONVENTIONS = [
  { method: 'x-original-method', uri: 'x-original-uri' },
  { method: 'x-forwarded-method', uri: 'x-forwarded-uri' },
] as const;

/** One value of a header the proxy sets once; Node joins repeated unknown headers with ", ". */
function single(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * The method and raw target of the request the proxy asks about. Exactly one convention must be present: the proxy
 * sets its own headers, but passes the client's other headers along, so a client could add the other convention's
 * pair to describe a request it is not making. Both present is refused, never resolved by a preference.
 */
export function describedRequest(headers: IncomingHttpHeaders): { method: string; url: string } {
  const present = CONVENTIONS.filter((c) => headers[c.method] !== undefined || headers[c.uri] !== undefined);
  if (present.length !== 1)
    throw new InvalidRequest(
      present.length === 0
        ? 'A forward-auth request names the request it asks about in X-Original-Method and X-Original-URI (or X-Forwarded-Method and X-Forwarded-Uri)'
        : 'A forward-auth request must use one convention: X-Original-Method/-URI or X-Forwarded-Method/-Uri, not both',
    );
  const convention = present[0] as (typeof CONVENTIONS)[number];
  const method = single(headers, convention.method);
  const url = single(headers, convention.uri);
  if (method === undefined || url === undefined)
    throw new InvalidRequest(`A forward-auth request needs both ${convention.method} and ${convention.uri}`);
  if (!METHODS.has(method)) throw new InvalidRequest(`The described method must be one of ${HTTP_METHODS.join(', ')}`);
  return { method, url };
}

/** How long the proxy may keep an allowed answer: within the setting, the token's life, and never a proof's. */
function cacheControl(deps: ForwardAuthDeps, decision: GatewayDecision): string {
  if (decision.proofBound || deps.cacheSeconds === 0) return 'no-store';
  const now = Math.floor(deps.clock().getTime() / 1000);
  const left = decision.tokenExpiresAt === null ? deps.cacheSeconds : decision.tokenExpiresAt - now;
  const seconds = Math.min(deps.cacheSeconds, left);
  return seconds > 0 ? `max-age=${seconds}` : 'no-store';
}

export function forwardAuthHandler(deps: ForwardAuthDeps): FrontHandler {
  // A proxy asks over a few keep-alive connections: its address is judged once per connection, not per question.
  const judged = new WeakMap<Socket, boolean>();
  const isCaller = (socket: Socket) => {
    let allowed = judged.get(socket);
    if (allowed === undefined) {
      allowed = deps.isCaller(socket.remoteAddress);
      judged.set(socket, allowed);
    }
    return allowed;
  };
  return {
    route: () => FORWARD_AUTH_PATH,
    matches: (url) =>
      url.startsWith(FORWARD_AUTH_PATH) &&
      (url.length === FORWARD_AUTH_PATH.length || url[FORWARD_AUTH_PATH.length] === '?'),
    async handle(request: IncomingMessage, response: ServerResponse, context: FrontContext) {
      // A proxy sends no body with its question; Node reads and drops any that comes once the answer is sent.
      if (!isCaller(request.socket)) throw new GatehouseError('untrusted_caller');
      const described = describedRequest(request.headers);
      context.judgedPath = described.url.split('?')[0];
      const decision = await decide(
        deps,
        { method: described.method, url: described.url, headers: request.headers, rawHeaders: request.rawHeaders },
        { requestId: context.requestId, clientIp: context.clientIp },
      );
      // Config validation refuses exchange_audience with forward auth: the proxy forwards the caller's own token.
      if (decision.authorization !== null) throw new GatehouseError('server_error');
      // Built field by field rather than spread and trimmed: a deleted key leaves V8 a slow dictionary object, which
      // Node then walks to write the head, on every question.
      const caching = cacheControl(deps, decision);
      const headers: OutgoingHttpHeaders = {};
      for (const name in context.baseHeaders)
        if (name !== 'pragma' || caching === 'no-store') headers[name] = context.baseHeaders[name];
      headers['cache-control'] = caching;
      headers['x-gatehouse-request-id'] = context.requestId;
      headers['content-length'] = 0;
      if (decision.principal) addIdentityHeaders(headers, decision.principal);
      response.writeHead(200, headers);
      response.end();
    },
  };
}
