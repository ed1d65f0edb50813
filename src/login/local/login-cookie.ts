// The browser cookies of local sign-in: the login transaction cookie (SPEC.md "Local login": both steps are
// cookie-bound), a separate short-lived cookie, so a stolen transaction_id/challenge_id pair is useless in another
// browser; and the long-lived device cookie (known-device.ts). __Host- over https (RFC 6265bis §4.1.3).
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';

type CookieBase = 'gatehouse_login' | 'gatehouse_device';

const names = (issuer: string, base: CookieBase) => {
  const secure = new URL(issuer).protocol === 'https:';
  return { name: secure ? `__Host-${base}` : base, secure };
};

function setCookie(reply: FastifyReply, issuer: string, base: CookieBase, value: string, maxAgeSeconds: number) {
  const { name, secure } = names(issuer, base);
  reply.header(
    'set-cookie',
    stringifySetCookie({ name, value, httpOnly: true, secure, sameSite: 'lax', path: '/', maxAge: maxAgeSeconds }),
  );
}

function readCookie(request: FastifyRequest, issuer: string, base: CookieBase): string | undefined {
  const header = request.headers.cookie;
  return header ? parseCookie(header)[names(issuer, base).name] : undefined;
}

export function setLoginCookie(reply: FastifyReply, issuer: string, value: string, maxAgeSeconds: number): void {
  setCookie(reply, issuer, 'gatehouse_login', value, maxAgeSeconds);
}

export function clearLoginCookie(reply: FastifyReply, issuer: string): void {
  setCookie(reply, issuer, 'gatehouse_login', '', 0);
}

export function readLoginCookie(request: FastifyRequest, issuer: string): string | null {
  const value = readCookie(request, issuer, 'gatehouse_login');
  return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}

export function setDeviceCookie(reply: FastifyReply, issuer: string, value: string, maxAgeSeconds: number): void {
  setCookie(reply, issuer, 'gatehouse_device', value, maxAgeSeconds);
}

/** The raw value; known-device.ts parses it (a malformed value counts as no device cookie). */
export function readDeviceCookie(request: FastifyRequest, issuer: string): string | null {
  return readCookie(request, issuer, 'gatehouse_device') ?? null;
}
