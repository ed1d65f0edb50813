// RFC 6750 §2.1: the access token comes in the Authorization header only; never in a query string (DESIGN.md).
// credentials = "Bearer" 1*SP b64token.
import { MalformedBearerCredentials, MissingBearerToken } from './errors.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^Bearer(?: |$)/i;

export function bearerToken(authorization: string | undefined): string {
  const match = BEARER.exec(authorization ?? '');
  if (match?.[1]) return match[1];
  if (authorization !== undefined && BEARER_SCHEME.test(authorization)) throw new MalformedBearerCredentials();
  throw new MissingBearerToken();
}
