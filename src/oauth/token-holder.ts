// Which client may be shown or handed a person's access token it did not obtain itself: the client it was issued to,
// or a `service` client provisioned for (one of) its audience(s), i.e. the API the token was sent to. Introspection
// (RFC 7662 §4: a token's details are not shown to every client) and token exchange (RFC 8693: an API exchanges the
// token it received) apply the same rule.
import type { Client } from '../clients/store.ts';
import type { AccessTokenClaims } from './tokens.ts';

export function holdsToken(caller: Client, claims: AccessTokenClaims): boolean {
  if (claims.client_id === caller.id) return true;
  const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  return (
    caller.kind === 'service' && audiences.some((aud) => typeof aud === 'string' && caller.audiences.includes(aud))
  );
}
