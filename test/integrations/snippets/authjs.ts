// Auth.js (next-auth v5, @auth/core): Gatehouse as a generic OIDC provider.
import type { OIDCConfig } from '@auth/core/providers';

export function gatehouseProvider(
  issuer: string,
  clientId: string,
  clientSecret: string,
): OIDCConfig<Record<string, unknown>> {
  return {
    id: 'gatehouse',
    name: 'Gatehouse',
    type: 'oidc',
    issuer,
    clientId,
    clientSecret,
    // The one option to set: Auth.js defaults to client_secret_basic, and Gatehouse refuses HTTP Basic.
    client: { token_endpoint_auth_method: 'client_secret_post' },
  };
}

/** With the person's name and email in the session: Auth.js then reads the profile from userinfo. */
export function gatehouseProviderWithUserinfo(issuer: string, clientId: string, clientSecret: string) {
  return { ...gatehouseProvider(issuer, clientId, clientSecret), idToken: false };
}
