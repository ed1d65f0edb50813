// login(): starts the authorization code flow with PKCE S256 (RFC 7636), a fresh state and nonce, and sends the
// browser to Gatehouse. The secrets stay in this tab's sessionStorage until handleCallback().
import { DEFAULT_SCOPE, type GatehouseConfig, resources } from './config.ts';
import { discover } from './discovery.ts';
import { codeChallenge, randomToken } from './random.ts';
import { saveTransaction } from './transaction.ts';

export interface LoginOptions {
  /** `login` forces a fresh sign-in, `consent` the consent page, `none` fails instead of showing anything. */
  prompt?: 'none' | 'login' | 'consent';
  /** Seconds since the last sign-in beyond which Gatehouse asks again (OIDC Core §3.1.2.1). */
  maxAge?: number;
  loginHint?: string;
  /** Instead of `location.assign`: e.g. open the URL in a popup. */
  navigate?: (url: string) => void;
}

/** Builds the authorization URL, remembers the transaction and navigates to it; resolves with the URL. */
export async function login(config: GatehouseConfig, options: LoginOptions = {}): Promise<string> {
  const metadata = await discover(config);
  const state = randomToken();
  const nonce = randomToken();
  const verifier = randomToken();
  const url = new URL(metadata.authorization_endpoint);
  const query = url.searchParams;
  query.set('response_type', 'code');
  query.set('client_id', config.clientId);
  query.set('redirect_uri', config.redirectUri);
  query.set('scope', config.scope ?? DEFAULT_SCOPE);
  query.set('state', state);
  query.set('nonce', nonce);
  query.set('code_challenge', await codeChallenge(verifier));
  query.set('code_challenge_method', 'S256');
  for (const resource of resources(config)) query.append('resource', resource);
  if (options.prompt) query.set('prompt', options.prompt);
  if (options.maxAge !== undefined) query.set('max_age', String(options.maxAge));
  if (options.loginHint) query.set('login_hint', options.loginHint);
  saveTransaction(config, { state, nonce, verifier, redirectUri: config.redirectUri });
  const href = url.toString();
  (options.navigate ?? ((to: string) => location.assign(to)))(href);
  return href;
}
