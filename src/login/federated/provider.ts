// What every provider kind gives the shared flow: where to send the browser, and how to turn the callback into the
// external account it vouches for. Provider-specific protocol lives in one file per kind (oidc.ts, ...).

/** The account at the provider, after its answer was verified (ID token signature and claims, or its API over TLS). */
export interface ExternalProfile {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string;
  /** The provider's own amr and acr, used only when the operator trusts this provider's MFA. */
  amr: string[];
  acr: string | null;
}

/** The per-transaction secrets a provider kind needs at both ends of the round trip. */
export interface RoundTrip {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The callback as received: the query of a GET, or the form of a POST (response_mode=form_post). */
export type CallbackParameters = { method: 'GET' | 'POST'; params: URLSearchParams };

export interface ProviderFlow {
  authorizationUrl(trip: RoundTrip): Promise<URL>;
  /** Throws on anything unverifiable; the caller maps every failure to one refusal. */
  complete(callback: CallbackParameters, trip: RoundTrip): Promise<ExternalProfile>;
}

export interface FederatedProvider {
  id: string;
  name: string;
  trustUpstreamMfa: boolean;
  flow: ProviderFlow;
}
