// DESIGN.md "Session cookie": __Host-gatehouse_session (Secure, HttpOnly, SameSite=Lax, Path=/) over https;
// plain-http development on localhost cannot set Secure cookies, so it uses gatehouse_session without the prefix.
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface CookiePolicy {
  name: string;
  secure: boolean;
}

export function cookiePolicy(issuer: string): CookiePolicy {
  const secure = new URL(issuer).protocol === 'https:';
  return { name: secure ? '__Host-gatehouse_session' : 'gatehouse_session', secure };
}

export function readSessionCookie(request: FastifyRequest, policy: CookiePolicy): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const value = parseCookie(header)[policy.name];
  // Our tokens are 43 base64url characters; anything else is not ours and is ignored without a lookup.
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}

export function setSessionCookie(
  reply: FastifyReply,
  policy: CookiePolicy,
  token: string,
  maxAgeSeconds: number,
): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: policy.name,
      value: token,
      httpOnly: true,
      secure: policy.secure,
      sameSite: 'lax',
      path: '/',
      maxAge: Math.max(0, Math.floor(maxAgeSeconds)),
    }),
  );
}

export function clearSessionCookie(reply: FastifyReply, policy: CookiePolicy): void {
  reply.header(
    'set-cookie',
    stringifySetCookie({
      name: policy.name,
      value: '',
      httpOnly: true,
      secure: policy.secure,
      sameSite: 'lax',
      path: '/',
      maxAge: 0,
    }),
  );
}
