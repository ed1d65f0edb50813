// Microsoft Entra ID. A single-tenant issuer (https://login.microsoftonline.com/<tenant id>/v2.0) is plain OIDC. The
// multi-tenant endpoints (common, organizations, consumers) publish one discovery document whose issuer is the
// template https://login.microsoftonline.com/{tenantid}/v2.0, and each ID token's `iss` names its own tenant: the
// issuer check is then "iss equals the template with the token's `tid`" (Microsoft identity platform, "Validate the
// issuer"). openid-client does that only for the real login.microsoftonline.com origin, so the configured issuer (a
// national cloud, or a test stand-in) would lose it; this flow does the same check with oauth4webapi, and the
// signature against the published keys with jose.
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import { oidcFlow, profileOf } from './oidc.ts';
import type { CallbackParameters, ProviderFlow, RoundTrip } from './provider.ts';

export interface MicrosoftOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const MULTI_TENANT = /\/(common|organizations|consumers)\/v2\.0$/;
/** A tenant id is a GUID; anything else in `tid` is refused before it becomes part of an expected issuer. */
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SCOPES = 'openid email profile';

export function microsoftFlow(options: MicrosoftOptions): ProviderFlow {
  if (!MULTI_TENANT.test(options.issuer)) return oidcFlow({ ...options, scopes: SCOPES.split(' ') });
  const template = options.issuer.replace(MULTI_TENANT, '/{tenantid}/v2.0');
  const insecure = new URL(options.issuer).protocol === 'http:';
  let discovered: Promise<oauth.AuthorizationServer> | null = null;
  const server = () => {
    discovered ??= discover(options.issuer, template, insecure).catch((error: unknown) => {
      discovered = null;
      throw error;
    });
    return discovered;
  };
  const client: oauth.Client = { client_id: options.clientId };
  const auth = oauth.ClientSecretPost(options.clientSecret);

  return {
    async authorizationUrl(trip: RoundTrip) {
      const as = await server();
      const url = new URL(as.authorization_endpoint as string);
      url.search = new URLSearchParams({
        client_id: options.clientId,
        response_type: 'code',
        redirect_uri: options.redirectUri,
        scope: SCOPES,
        state: trip.state,
        nonce: trip.nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(trip.codeVerifier),
        code_challenge_method: 'S256',
      }).toString();
      return url;
    },
    async complete(callback: CallbackParameters, trip: RoundTrip) {
      const as = await server();
      const params = oauth.validateAuthResponse(as, client, callback.params, trip.state);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        params,
        options.redirectUri,
        trip.codeVerifier,
        { [oauth.allowInsecureRequests]: insecure },
      );
      // The expected issuer depends on the token's tenant: read `tid` first (unverified), then verify everything
      // against the issuer it implies; a token whose `iss` names another tenant than its `tid` fails here.
      const body = (await response.clone().json()) as { id_token?: unknown };
      const tid = typeof body.id_token === 'string' ? decodeJwt(body.id_token).tid : undefined;
      if (typeof tid !== 'string' || !TENANT_ID.test(tid)) throw new Error('ID token without a valid tid');
      const tenant: oauth.AuthorizationServer = { ...as, issuer: template.replace('{tenantid}', tid) };
      const tokens = await oauth.processAuthorizationCodeResponse(tenant, client, response, {
        expectedNonce: trip.nonce,
        requireIdToken: true,
      });
      // Signature, issuer and audience once more with jose, against the keys the discovery document names.
      const keys = createRemoteJWKSet(new URL(as.jwks_uri as string));
      const { payload } = await jwtVerify(tokens.id_token as string, keys, {
        issuer: tenant.issuer,
        audience: options.clientId,
      });
      return profileOf({ ...(payload as oauth.IDToken), email_verified: false });
    },
  };
}

async function discover(issuer: string, template: string, insecure: boolean): Promise<oauth.AuthorizationServer> {
  const response = await oauth.discoveryRequest(new URL(issuer), { [oauth.allowInsecureRequests]: insecure });
  if (!response.ok) throw new Error(`discovery answered ${response.status}`);
  const metadata = (await response.json()) as oauth.AuthorizationServer;
  // OIDC Discovery §4.3, with the multi-tenant exception: the document must name the template for this endpoint.
  if (metadata.issuer !== template) throw new Error(`discovery names issuer ${metadata.issuer}, expected ${template}`);
  return metadata;
}
