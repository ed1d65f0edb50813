// The browser binding of a SAML round trip: a random value whose hash is stored with the AuthnRequest's ID, so a
// response answering that request is accepted only in the browser that sent it (a stolen or IdP-initiated response
// cannot start a session elsewhere). The identity provider returns by a cross-site form POST, which a Lax cookie
// would not accompany, so SameSite=None over https (__Host-, RFC 6265bis §4.1.3); the cookie proves nothing without
// a signed response to its request, so it adds no CSRF surface. Plain http (development, tests) cannot set None: Lax.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

const policy = (issuer: string) => {
  const secure = new URL(issuer).protocol === 'https:';
  return {
    name: secure ? '__Host-gatehouse_saml' : 'gatehouse_saml',
    secure,
    sameSite: secure ? ('none' as const) : ('lax' as const),
  };
};

export function setSamlCookie(reply: FastifyReply, issuer: string, value: string, maxAgeSeconds: number): void {
  const { name, secure, sameSite } = policy(issuer);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value, httpOnly: true, secure, sameSite, path: '/', maxAge: maxAgeSeconds }),
  );
}

export function clearSamlCookie(reply: FastifyReply, issuer: string): void {
  setSamlCookie(reply, issuer, '', 0);
}

export function readSamlCookie(request: FastifyRequest, issuer: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const value = parseCookie(header)[policy(issuer).name];
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}
