// RFC 6750 §2.1: the access token comes in the Authorization header only; never in a query string (DESIGN.md).
// credentials = "Bearer" 1*SP b64token. §3.1: a request with no Bearer credentials gets a bare challenge and no
// error code; Bearer credentials that are malformed are invalid_request (400).
import { GatehouseError } from '../http/errors.ts';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^Bearer(?: |$)/i;
const MALFORMED = 'The Authorization header must be Bearer, a space and one access token';

export function bearerToken(authorization: string | undefined): string {
  const match = BEARER.exec(authorization ?? '');
  if (match?.[1]) return match[1];
  if (authorization !== undefined && BEARER_SCHEME.test(authorization))
    throw new GatehouseError('invalid_request', MALFORMED, {
      headers: { 'www-authenticate': `Bearer error="invalid_request", error_description="${MALFORMED}"` },
    });
  throw new GatehouseError('invalid_token', 'Send the access token as Authorization: Bearer <token>', {
    headers: { 'www-authenticate': 'Bearer' },
  });
}
