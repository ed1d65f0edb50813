// Redirect URI rules: exact match at authorization (RFC 9700 §4.1.3) after the one normalisation of an empty path
// (uri-normalization.ts), with one exception: a native client's loopback URI matches on any port (RFC 8252 §7.3).
// Registration rules are here too, beside the matching they feed.
import { normalizeEmptyPath } from './uri-normalization.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]']);

function parse(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

const isLoopback = (url: URL) => url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);

/**
 * True when `requested` is one of `registered`, exactly once an empty path is `/`, or a native loopback URI differing
 * only by port.
 */
export function matchesRedirectUri(registered: readonly string[], sent: string, native: boolean): boolean {
  const requested = normalizeEmptyPath(sent);
  if (registered.includes(requested)) return true;
  if (!native) return false;
  const asked = parse(requested);
  if (!asked || !isLoopback(asked)) return false;
  return registered.some((entry) => {
    const candidate = parse(entry);
    if (!candidate || !isLoopback(candidate)) return false;
    candidate.port = asked.port;
    return candidate.href === asked.href && requested === asked.href;
  });
}

export interface RedirectRegistrationContext {
  native: boolean;
  development: boolean;
}

/**
 * `user:password@` in a URI (RFC 3986 §3.2.1: deprecated, a password in a URI is plain text wherever the URI goes).
 * A registered URI is echoed in redirects, browser history, logs and a page's CSP, so it must hold no credentials.
 */
export const hasUserCredentials = (url: URL) => url.username !== '' || url.password !== '';

/**
 * Why a URI may not be registered, or null when it may: absolute, no fragment (RFC 6749 §3.1.2), no user
 * credentials (RFC 3986 §3.2.1), https; http only
 * for a native client's loopback (RFC 8252 §7.3) or localhost in a `development` application; a native client may
 * also use a private-use scheme in reverse-domain form (RFC 8252 §7.1).
 */
export function redirectUriProblem(value: string, context: RedirectRegistrationContext): string | null {
  const url = parse(value);
  if (!url || value.length > 2000) return 'must be an absolute URI';
  if (value.includes('#')) return 'must not contain a fragment';
  if (hasUserCredentials(url)) return 'must not contain user credentials';
  if (url.href !== value) return `must be written in normalized form: ${url.href}`;
  if (url.protocol === 'https:') return url.hostname === '' ? 'must name a host' : null;
  if (url.protocol === 'http:') {
    if (context.native && isLoopback(url)) return null;
    if (context.development && (url.hostname === 'localhost' || isLoopback(url))) return null;
    return 'must use https (http only for loopback on native clients or localhost in development applications)';
  }
  if (!context.native) return 'must use https';
  // RFC 8252 §7.1, §8.4: reverse-domain form, so the scheme is one the app's publisher can claim and others avoid.
  if (/^[a-z][a-z0-9+-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return null;
  return 'must use https, loopback http, or a private-use scheme in reverse-domain form (com.example.app:/path)';
}
