// The token endpoint (RFC 6749 §4.1.3, §6): a form body with client_id only, as a public client (§2.3 has no
// secret for it), and the ID token in the answer verified before anything is returned.
import { type ClientConfig, resources } from './config.ts';
import { discover } from './discovery.ts';
import { TokenError } from './errors.ts';
import { type IdTokenClaims, verifyIdToken } from './id-token.ts';

export interface Tokens {
  accessToken: string;
  tokenType: string;
  /** When the access token expires, in milliseconds since the epoch (from `expires_in`). */
  expiresAt: number;
  scope: string;
  /** Present when `offline_access` was granted; each refresh returns a new one (rotation). */
  refreshToken?: string;
  idToken?: string;
  /** The verified ID token's claims. */
  claims?: IdTokenClaims;
}

interface TokenResponse {
  access_token?: unknown;
  token_type?: unknown;
  expires_in?: unknown;
  scope?: unknown;
  refresh_token?: unknown;
  id_token?: unknown;
  error?: unknown;
  error_description?: unknown;
}

export async function requestTokens(
  config: ClientConfig,
  parameters: Record<string, string>,
  nonce: string | undefined,
): Promise<Tokens> {
  const metadata = await discover(config);
  const body = new URLSearchParams({ ...parameters, client_id: config.clientId });
  for (const resource of resources(config)) body.append('resource', resource);
  const response = await fetch(metadata.token_endpoint, { method: 'POST', body });
  let json: TokenResponse;
  try {
    json = (await response.json()) as TokenResponse;
  } catch {
    throw new TokenError(
      'invalid_response',
      `the token endpoint answered ${response.status} without JSON`,
      response.status,
    );
  }
  if (!response.ok || typeof json.access_token !== 'string') {
    const error = typeof json.error === 'string' ? json.error : 'invalid_response';
    const description = typeof json.error_description === 'string' ? json.error_description : undefined;
    throw new TokenError(error, description, response.status);
  }
  const tokens: Tokens = {
    accessToken: json.access_token,
    tokenType: typeof json.token_type === 'string' ? json.token_type : 'Bearer',
    expiresAt: Date.now() + (typeof json.expires_in === 'number' ? json.expires_in : 0) * 1000,
    scope: typeof json.scope === 'string' ? json.scope : '',
  };
  if (typeof json.refresh_token === 'string') tokens.refreshToken = json.refresh_token;
  if (typeof json.id_token === 'string') {
    tokens.idToken = json.id_token;
    tokens.claims = await verifyIdToken(json.id_token, config, metadata, { nonce, accessToken: json.access_token });
  }
  return tokens;
}
