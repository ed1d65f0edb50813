// What an app tells the SDK about itself. There is deliberately no client secret: a browser app is a public client
// (RFC 6749 §2.1) and anything shipped to a browser is readable by anyone.

export interface GatehouseConfig {
  /** The issuer exactly as Gatehouse names it, e.g. `https://id.example.com`. */
  issuer: string;
  /** The `browser` client's id (`cli_…`). */
  clientId: string;
  /** Where Gatehouse sends the browser back; registered on the client exactly. */
  redirectUri: string;
  /** Space-separated scopes; default `openid profile email`. Add `offline_access` for a refresh token. */
  scope?: string;
  /** RFC 8707 resource indicators: the APIs the access tokens are for. */
  resource?: string | readonly string[];
  /** Seconds of clock difference accepted when checking `exp`, `nbf` and `iat`; default 60. */
  clockTolerance?: number;
  /** Where one sign-in's state, nonce and PKCE verifier wait for the callback; default `sessionStorage`. */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
}

/**
 * What the token requests and ID token checks need: the config without the redirect and its storage, which the device
 * authorization grant (device.ts) has neither of.
 */
export type ClientConfig = Omit<GatehouseConfig, 'redirectUri' | 'storage'>;

export const DEFAULT_SCOPE = 'openid profile email';
export const DEFAULT_CLOCK_TOLERANCE = 60;

export function resources(config: ClientConfig): readonly string[] {
  const { resource } = config;
  if (resource === undefined) return [];
  return typeof resource === 'string' ? [resource] : resource;
}
