// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2-3). The ID token hint names the client (expired
// hints are fine: they only identify, §2); `post_logout_redirect_uri` must be registered exactly for that client.
// Without a valid hint the user confirms first, so a third-party page cannot sign them out silently.
import { type GatehouseError, InvalidRequest } from '../http/errors.ts';
import type { ClientDirectory } from './client-directory.ts';
import { verifyRs256 } from './jws.ts';
import type { Keyring } from './keyring.ts';

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

/** The client an ID token we signed was issued to. Expiry does not matter: the hint only identifies (§2). */
async function hintedClient(deps: LogoutDeps, hint: string): Promise<string | null> {
  const verified = await verifyRs256(hint, (kid) => deps.keyring.findVerificationKey(kid));
  if (!verified || verified.payload.iss !== deps.issuer) return null;
  const aud = verified.payload.aud;
  const first = Array.isArray(aud) ? aud[0] : aud;
  return typeof first === 'string' ? first : null;
}

export async function planLogout(deps: LogoutDeps, params: LogoutParams, confirmed: boolean): Promise<LogoutPlan> {
  let clientId = params.client_id ?? null;
  if (params.id_token_hint) {
    const hinted = await hintedClient(deps, params.id_token_hint);
    if (!hinted) return { kind: 'error-page', error: new InvalidRequest('id_token_hint is not an ID token we issued') };
    if (clientId !== null && clientId !== hinted)
      return { kind: 'error-page', error: new InvalidRequest('client_id does not match the id_token_hint') };
    clientId = hinted;
  }
  let location: string | null = null;
  if (params.post_logout_redirect_uri) {
    const client = clientId ? await deps.clients.findClient(clientId) : null;
    if (!client?.postLogoutRedirectUris.includes(params.post_logout_redirect_uri))
      return {
        kind: 'error-page',
        error: new InvalidRequest('post_logout_redirect_uri is not registered for this client'),
      };
    const url = new URL(params.post_logout_redirect_uri);
    if (params.state) url.searchParams.append('state', params.state);
    location = url.href;
  }
  if (!params.id_token_hint && !confirmed) {
    const fields = Object.fromEntries(Object.entries(params).filter(([, v]) => typeof v === 'string')) as Record<
      string,
      string
    >;
    return { kind: 'confirm', fields, redirectTo: location };
  }
  return { kind: 'sign-out', location };
}
