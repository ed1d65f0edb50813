// The login transaction cookie (SPEC.md "Local login": both steps are cookie-bound). A separate short-lived cookie,
// so a stolen transaction_id/challenge_id pair is useless in another browser. __Host- over https (RFC 6265bis §4.1.3).
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

const names = (issuer: string) => {
  const secure = new URL(issuer).protocol === 'https:';
  return { name: secure ? '__Host-gatehouse_login' : 'gatehouse_login', secure };
};

export function setLoginCookie(reply: FastifyReply, issuer: string, value: string, maxAgeSeconds: number): void {
  const { name, secure } = names(issuer);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value, httpOnly: true, secure, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds }),
  );
}

export function clearLoginCookie(reply: FastifyReply, issuer: string): void {
  const { name, secure } = names(issuer);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value: '', httpOnly: true, secure, sameSite: 'lax', path: '/', maxAge: 0 }),
  );
}

export function readLoginCookie(request: FastifyRequest, issuer: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const value = parseCookie(header)[names(issuer).name];
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}
