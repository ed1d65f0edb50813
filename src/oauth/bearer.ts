// RFC 6750 §2.1: the access token comes in the Authorization header only; never in a query string (DESIGN.md).
// credentials = "Bearer" 1*SP b64token; RFC 9449 §7.1 adds the DPoP scheme with the same token68 syntax.
import type { PresentedToken } from './dpop.ts';
import { MalformedBearerCredentials, MissingBearerToken } from './errors.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const DPOP = /^DPoP +([A-Za-z0-9\-._~+/]+=*)$/i;
const KNOWN_SCHEME = /^(?:Bearer|DPoP)(?: |$)/i;

export function bearerToken(authorization: string | undefined): string {
  const match = BEARER.exec(authorization ?? '');
  if (match?.[1]) return match[1];
  if (authorization !== undefined && KNOWN_SCHEME.test(authorization)) throw new MalformedBearerCredentials();
  throw new MissingBearerToken();
}

/** The access token of a resource request and the scheme it came under (Bearer or DPoP). */
export function presentedToken(authorization: string | undefined): PresentedToken {
  const dpop = DPOP.exec(authorization ?? '');
  if (dpop?.[1]) return { scheme: 'dpop', token: dpop[1] };
  return { scheme: 'bearer', token: bearerToken(authorization) };
}
