// The browser binding of a federated round trip: a random value whose hash is stored with the transaction, so a
// `state` that leaks (it travels in URLs) is useless in another browser. __Host- over https (RFC 6265bis §4.1.3).
// SameSite=None over https because Apple returns by a cross-site form POST (response_mode=form_post), which a Lax
// cookie would not accompany; the cookie proves nothing without the transaction's state, so it adds no CSRF surface.
// Plain http (development, tests) cannot set SameSite=None, and form_post providers need https anyway: Lax there.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

const policy = (issuer: string) => {
  const secure = new URL(issuer).protocol === 'https:';
  return {
    name: secure ? '__Host-gatehouse_federated' : 'gatehouse_federated',
    secure,
    sameSite: secure ? ('none' as const) : ('lax' as const),
  };
};

export function setFederatedCookie(reply: FastifyReply, issuer: string, value: string, maxAgeSeconds: number): void {
  const { name, secure, sameSite } = policy(issuer);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value, httpOnly: true, secure, sameSite, path: '/', maxAge: maxAgeSeconds }),
  );
}

export function clearFederatedCookie(reply: FastifyReply, issuer: string): void {
  const { name, secure, sameSite } = policy(issuer);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value: '', httpOnly: true, secure, sameSite, path: '/', maxAge: 0 }),
  );
}

export function readFederatedCookie(request: FastifyRequest, issuer: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const value = parseCookie(header)[policy(issuer).name];
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}
