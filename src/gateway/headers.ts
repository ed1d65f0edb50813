// What crosses the gateway in headers (docs/gateway.md "Headers"). Towards the upstream: hop-by-hop headers go
// (RFC 9110 §7.6.1), as does anything a client could use to speak for the gateway (identity-headers.ts) and
// Gatehouse's own cookies (the session cookie belongs to the identity origin, SPEC.md "What the
// service does"); then the gateway adds the identity of the caller and exactly one X-Forwarded-For. Back from the
// upstream: hop-by-hop headers go, and so does any Set-Cookie naming one of Gatehouse's cookies (session fixation).
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Principal } from './access.ts';
import type { HeaderFilter } from './identity-headers.ts';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** Cookie names Gatehouse sets on its own origin (session/cookie.ts, login/local/login-cookie.ts). */
const OWN_COOKIE = /^(?:__Host-)?gatehouse_/;

/**
 * The header names a Connection header lists besides the usual keep-alive/close (which are hop-by-hop anyway), or
 * null when there are none: the usual case, which then costs no allocation.
 */
function listedInConnection(value: unknown): Set<string> | null {
  if (typeof value !== 'string') return null;
  const lower = value.toLowerCase();
  if (lower === 'keep-alive' || lower === 'close') return null;
  return new Set(lower.split(',').map((name) => name.trim()));
}

/** Hop-by-hop by RFC 9110 §7.6.1, or named by this message's Connection header. */
const isHopByHop = (name: string, listed: Set<string> | null) => HOP_BY_HOP.has(name) || listed?.has(name) === true;

function withoutOwnCookies(cookie: string): string {
  return cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !OWN_COOKIE.test(pair.slice(0, Math.max(0, pair.indexOf('=')))))
    .join('; ');
}

export interface ForwardContext {
  clientIp: string;
  requestId: string;
  /** Null on an unprotected route: no identity headers at all. */
  principal: Principal | null;
  /** True for a WebSocket handshake, which must keep its Connection/Upgrade pair. */
  upgrade?: boolean;
  /** Client headers an upstream could take for identity (identity-headers.ts). */
  stripped: HeaderFilter;
  /**
   * An exchanged token's Authorization header, sent instead of the client's; the client's DPoP proof goes too (it was
   * checked here and names the client's token, RFC 9449 §4.2 ath). Null or absent: the client's are forwarded.
   */
  authorization?: string | null;
}

export function upstreamRequestHeaders(incoming: IncomingHttpHeaders, context: ForwardContext): OutgoingHttpHeaders {
  const listed = listedInConnection(incoming.connection);
  const headers: OutgoingHttpHeaders = {};
  // Own keys only (a polluted prototype must not add headers), without an [name, value] array per header.
  for (const name of Object.keys(incoming)) {
    const value = incoming[name];
    if (value === undefined || isHopByHop(name, listed)) continue;
    if (context.stripped(name)) continue;
    if (context.authorization && (name === 'authorization' || name === 'dpop')) continue;
    if (name === 'cookie') {
      const kept = withoutOwnCookies(Array.isArray(value) ? value.join('; ') : value);
      if (kept !== '') headers.cookie = kept;
      continue;
    }
    headers[name] = value;
  }
  if (context.authorization) headers.authorization = context.authorization;
  if (context.upgrade) {
    headers.connection = 'Upgrade';
    headers.upgrade = incoming.upgrade;
  }
  headers['x-forwarded-for'] = context.clientIp;
  headers['x-gatehouse-request-id'] = context.requestId;
  if (context.principal) addIdentityHeaders(headers, context.principal);
  return headers;
}

/** The X-Gatehouse-* identity headers: what the upstream is told, by the built-in gateway or forward auth. */
export function addIdentityHeaders(headers: OutgoingHttpHeaders, principal: Principal): void {
  headers['x-gatehouse-subject'] = principal.subject;
  headers['x-gatehouse-client'] = principal.clientId;
  headers['x-gatehouse-scope'] = principal.scope;
  headers['x-gatehouse-roles'] = principal.roles.join(',');
}

const setsOwnCookie = (value: string) => OWN_COOKIE.test(value.slice(0, Math.max(0, value.indexOf('='))).trim());

export function downstreamResponseHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = listedInConnection(incoming.connection);
  const headers: OutgoingHttpHeaders = {};
  for (const name of Object.keys(incoming)) {
    const value = incoming[name];
    if (value === undefined || isHopByHop(name, listed)) continue;
    if (name === 'set-cookie') {
      const kept = (Array.isArray(value) ? value : [value]).filter((cookie) => !setsOwnCookie(cookie));
      if (kept.length > 0) headers[name] = kept;
      continue;
    }
    headers[name] = value;
  }
  return headers;
}
