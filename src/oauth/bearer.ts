// RFC 6750 §2.1: the access token comes in the Authorization header only; never in a query string (DESIGN.md).
import { GatehouseError } from '../http/errors.ts';

export function bearerToken(authorization: string | undefined): string {
  const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization ?? '');
  if (!match?.[1])
    throw new GatehouseError('invalid_token', 'Send the access token as Authorization: Bearer <token>', {
      headers: { 'www-authenticate': 'Bearer' },
    });
  return match[1];
}
