// Whether a request may pass the gateway, and as what (docs/gateway.md "Matching", "Checks"): the repeated-header
// and path rules, the route table, then the token checks. Shared by HTTP requests and WebSocket handshakes, and
// free of Fastify types so any entry point that has a method, a raw target and the request headers can ask it.
import type { IncomingHttpHeaders } from 'node:http';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import { type AccessDeps, authorizeRequest, type Principal } from './access.ts';
import type { ExchangedTokens, ForwardAttempt } from './exchanged-tokens.ts';
import { refuseRepeatedHeaders } from './repeated-headers.ts';
import { judgeTarget } from './request-path.ts';
import { matchRoute, type RouteTable } from './route-table.ts';

export interface DecisionDeps {
  table: RouteTable;
  access: AccessDeps;
  /** Null when gateway.token_exchange_client_id is empty, which config validation allows only with no exchange_audience. */
  exchanged: ExchangedTokens | null;
}

/** What the gateway reads of a request: Node's IncomingMessage has these fields. */
export interface GatewayRequest {
  method: string;
  /** The request target exactly as received (origin form: path and query). */
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: readonly string[];
}

export interface GatewayDecision {
  /** The canonical path the policy judged, which is the path the upstream must receive. */
  forwardPath: string;
  principal: Principal | null;
  /** The Authorization header the upstream gets instead of the client's (an exchanged token); null: the client's. */
  authorization: string | null;
  /** When the presented token expires (seconds since the epoch), or null on an unprotected route. */
  tokenExpiresAt: number | null;
  /** The token is DPoP-bound: each request carries a proof of its own, so no answer may be reused for another. */
  proofBound: boolean;
}

/**
 * Whether an upstream could read a query parameter name as `access_token`: once percent-decoded (`access%5Ftoken`),
 * without case (ASP.NET and others bind names so), and as PHP does, which drops leading spaces, reads `.`, ` ` and a
 * stray `[` as `_`, and takes `access_token[]` for an array named `access_token`.
 */
function readsAsAccessToken(name: string): boolean {
  const lower = name.toLowerCase().trimStart();
  return [lower, lower.replace(/\[[^\]]*\]$/, '')].some((n) => n.replace(/[. []/g, '_') === 'access_token');
}

/** RFC 6750 §5.3: bearer tokens never travel in URLs, where logs and Referer headers keep them. */
function refuseQueryToken(query: string): void {
  // The common case costs a scan: a query with no escape and no "access" in any case names no such parameter.
  const lower = query.toLowerCase();
  if (!lower.includes('%') && !lower.includes('access')) return;
  for (const name of new URLSearchParams(query.slice(1)).keys())
    if (readsAsAccessToken(name))
      throw new InvalidRequest('Send the access token in the Authorization header, never in the query string');
}

/** Judges one request; throws the refusal (a GatehouseError). */
export async function decide(
  deps: DecisionDeps,
  request: GatewayRequest,
  attempt: ForwardAttempt,
): Promise<GatewayDecision> {
  refuseRepeatedHeaders(request.rawHeaders);
  const target = judgeTarget(request.url);
  refuseQueryToken(target.query);
  const match = matchRoute(deps.table, request.method, target.decoded);
  switch (match.kind) {
    case 'outside':
      throw new InvalidRequest('The request path leaves the gateway prefix once normalised');
    case 'case_variant':
      throw new InvalidRequest('The request path differs only in letter case from a configured route prefix');
    case 'no_policy':
      throw new GatehouseError('no_route_policy');
    case 'unprotected':
      return {
        forwardPath: target.path,
        principal: null,
        authorization: null,
        tokenExpiresAt: null,
        proofBound: false,
      };
    case 'policy': {
      const allowed = await authorizeRequest(deps.access, match.policy, {
        method: request.method,
        // A DPoP proof's htu is the URL the client sent (RFC 9449 §4.3), before our normalisation.
        path: request.url.slice(0, request.url.length - target.query.length),
        authorization: request.headers.authorization,
        dpop: request.headers.dpop,
      });
      const audience = match.policy.exchangeAudience;
      const decision = {
        forwardPath: target.path,
        principal: allowed.principal,
        authorization: null,
        tokenExpiresAt: allowed.claims.exp,
        proofBound: allowed.claims.cnf?.jkt !== undefined,
      };
      if (audience === null || deps.exchanged === null) return decision;
      return {
        ...decision,
        authorization: await deps.exchanged.authorizationFor(allowed.token, allowed.claims, audience, attempt),
      };
    }
  }
}
