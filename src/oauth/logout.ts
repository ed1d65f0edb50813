// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2-4). The ID token hint names the client (expired
// hints are fine: they only identify, §2); `post_logout_redirect_uri` must be registered exactly for that client.
// The session ends without asking only when the hint is an ID token of this very session (same `sub`, and same
// `sid` when it has one): any ID token we ever signed is not enough, or a page holding someone's old hint could
// sign the current user out silently (§4 lets the OP ask the user). Everyone else confirms first.
// A well-formed hint we cannot verify (its key left the JWKS after a rotation, or a bad signature) proves nothing and
// counts as absent: the user confirms, and the redirect URI needs `client_id` to be tied to a client.
import { normalizeEmptyPath } from '../clients/uri-normalization.ts';
import { GatehouseError, InvalidRequest } from '../http/errors.ts';
import type { Session } from '../session/types.ts';
import type { ClientDirectory } from './client-directory.ts';
import { isCompactJws, verifyRs256 } from './jws.ts';
import type { Keyring } from './keyring.ts';

/** What RP-Initiated Logout 1.0 §2 parameters the endpoint reads; a cross-site POST passes on only these. */
export const LOGOUT_PARAMETERS = ['id_token_hint', 'post_logout_redirect_uri', 'state', 'client_id'] as const;

export interface LogoutParams {
  id_token_hint?: string | undefined;
  post_logout_redirect_uri?: string | undefined;
  state?: string | undefined;
  client_id?: string | undefined;
}

export type LogoutPlan =
  | { kind: 'error-page'; error: GatehouseError }
  | { kind: 'confirm'; fields: Record<string, string>; redirectTo: string | null }
  | { kind: 'sign-out'; location: string | null };

export interface LogoutDeps {
  clients: ClientDirectory;
  keyring: Keyring;
  issuer: string;
}

interface Hint {
  clientId: string;
  sub: string;
  sid: string | null;
}

/** A hint shaped like a JWT that no key we publish verifies: old RPs' hints after a rotation (§2: expiry is fine). */
const UNVERIFIABLE = Symbol('unverifiable hint');

/** What an ID token we signed says about its holder; expiry does not matter (§2). Access tokens are refused. */
async function readHint(deps: LogoutDeps, hint: string): Promise<Hint | GatehouseError | typeof UNVERIFIABLE> {
  const verified = await verifyRs256(hint, (kid) => deps.keyring.findVerificationKey(kid));
  if (!verified && isCompactJws(hint)) return UNVERIFIABLE;
  if (!verified || verified.payload.iss !== deps.issuer)
    return new InvalidRequest('id_token_hint is not an ID token we issued');
  // Our ID tokens carry typ JWT; access tokens at+jwt (RFC 9068 §2.1), and those are not hints.
  if (verified.header.typ !== 'JWT')
    return new InvalidRequest('id_token_hint must be an ID token, not an access token');
  const { aud, sub, sid } = verified.payload;
  const clientId = Array.isArray(aud) ? aud[0] : aud;
  if (typeof clientId !== 'string' || typeof sub !== 'string')
    return new InvalidRequest('id_token_hint is not an ID token we issued');
  return { clientId, sub, sid: typeof sid === 'string' ? sid : null };
}

const belongsTo = (hint: Hint, session: Session) =>
  hint.sub === session.identityId && (hint.sid === null || hint.sid === session.id);

/**
 * `confirmed` is true for the confirmation form's same-origin POST. A request without a live session has nothing
 * to end, so it goes straight to the (verified) redirect.
 */
export async function planLogout(
  deps: LogoutDeps,
  params: LogoutParams,
  session: Session | null,
  confirmed: boolean,
): Promise<LogoutPlan> {
  let clientId = params.client_id ?? null;
  let hint: Hint | null = null;
  let unverifiableHint = false;
  if (params.id_token_hint) {
    const read = await readHint(deps, params.id_token_hint);
    if (read === UNVERIFIABLE) unverifiableHint = true;
    else if (read instanceof GatehouseError) return { kind: 'error-page', error: read };
    else {
      if (clientId !== null && clientId !== read.clientId)
        return { kind: 'error-page', error: new InvalidRequest('client_id does not match the id_token_hint') };
      hint = read;
      clientId = read.clientId;
    }
  }
  let location: string | null = null;
  if (params.post_logout_redirect_uri) {
    const client = clientId ? await deps.clients.findClient(clientId) : null;
    // Compared exactly once an empty path is `/` (src/clients/uri-normalization.ts), as redirect URIs are.
    const requested = normalizeEmptyPath(params.post_logout_redirect_uri);
    // A service client has no browser to send back; URIs it kept from before that rule are not honoured.
    if (client?.kind !== 'service' && client?.postLogoutRedirectUris.includes(requested)) {
      const url = new URL(requested);
      if (params.state) url.searchParams.append('state', params.state);
      location = url.href;
    } else if (!(unverifiableHint && clientId === null)) {
      return {
        kind: 'error-page',
        error: new InvalidRequest('post_logout_redirect_uri is not registered for this client'),
      };
    }
    // Else only the unverifiable hint could have named the client. The relying party did nothing wrong (its hint was
    // good when issued), so the user may still sign out here, but goes nowhere unverified (§3).
  }
  if (session && !confirmed && !(hint && belongsTo(hint, session))) {
    const fields = Object.fromEntries(Object.entries(params).filter(([, v]) => typeof v === 'string')) as Record<
      string,
      string
    >;
    return { kind: 'confirm', fields, redirectTo: location };
  }
  return { kind: 'sign-out', location };
}
