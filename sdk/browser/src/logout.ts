// logout(): RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0 §2) at the discovery document's
// end_session_endpoint; Gatehouse ends its session and returns to the registered post-logout URI.
import type { GatehouseConfig } from './config.ts';
import { discover } from './discovery.ts';
import { DiscoveryError } from './errors.ts';

export interface LogoutOptions {
  /** The ID token of the sign-in: lets Gatehouse skip its confirmation page. */
  idTokenHint?: string;
  /** Registered exactly on the client as a post-logout redirect URI. */
  postLogoutRedirectUri?: string;
  state?: string;
  navigate?: (url: string) => void;
}

export async function logout(config: GatehouseConfig, options: LogoutOptions = {}): Promise<string> {
  const metadata = await discover(config);
  if (!metadata.end_session_endpoint) throw new DiscoveryError('the issuer has no end_session_endpoint');
  const url = new URL(metadata.end_session_endpoint);
  url.searchParams.set('client_id', config.clientId);
  if (options.idTokenHint) url.searchParams.set('id_token_hint', options.idTokenHint);
  if (options.postLogoutRedirectUri) url.searchParams.set('post_logout_redirect_uri', options.postLogoutRedirectUri);
  if (options.state) url.searchParams.set('state', options.state);
  const href = url.toString();
  (options.navigate ?? ((to: string) => location.assign(to)))(href);
  return href;
}
