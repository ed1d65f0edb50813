// Whether the issuer's address reaches this process's listener. Every link Gatehouse prints or sends (enrollment,
// verification, redirects to the sign-in pages) starts with the issuer, so an issuer that points at another port
// gives links that do not open. Only a loopback issuer can be judged here: for a public name a reverse proxy or
// DNS decides where requests go, and that is the normal production setup.
import { parseListen } from './listen-address.ts';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1']);
/** Listener hosts that accept connections on every local address, loopback included. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

const isLoopback = (host: string) => LOOPBACK_NAMES.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

function issuerAddress(issuer: string): { host: string; port: number } | null {
  try {
    const url = new URL(issuer);
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return null;
  }
}

/** `localhost` reaches a listener on 127.0.0.1 or ::1 (the resolver offers both), and the other way round. */
function sameLoopbackHost(issuerHost: string, listenHost: string): boolean {
  if (issuerHost === listenHost || WILDCARD_HOSTS.has(listenHost)) return true;
  return (
    (issuerHost === 'localhost' || listenHost === 'localhost') &&
    LOOPBACK_NAMES.has(issuerHost) &&
    LOOPBACK_NAMES.has(listenHost)
  );
}

/**
 * Why requests to a loopback issuer do not reach a listener on `listen`, or null when they do or it cannot be
 * known (a public issuer host, or port 0, which the system picks at start).
 */
export function issuerListenerMismatch(issuer: string, listen: string): string | null {
  const target = issuerAddress(issuer);
  const listener = parseListen(listen);
  if (!target || !listener || listener.port === 0 || !isLoopback(target.host)) return null;
  if (target.port === listener.port && sameLoopbackHost(target.host, listener.host)) return null;
  return `the issuer ${issuer} is port ${target.port} on ${target.host}, but the listener is ${listen}: links to the issuer will not reach this server unless something on port ${target.port} forwards to it`;
}

/**
 * The development instance's issuer: http://localhost with the listener's port, so `GATEHOUSE_LISTEN` alone moves
 * both. Null for port 0 (the port is known only once listening), which keeps the default.
 */
export function developmentIssuer(listen: string): string | null {
  const listener = parseListen(listen);
  if (!listener || listener.port === 0) return null;
  return `http://localhost:${listener.port}`;
}
