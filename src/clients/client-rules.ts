// What a client registration may say. Returns every problem with its field path, so the admin sees them all at once.
// The lists are checked as sent (repeats included), so `body.scopes.2` is the third scope the caller sent.
import type { FieldProblem } from '../http/errors.ts';
import { jwkProblem, registeredUrlProblem } from './client-keys-rules.ts';
import { redirectUriProblem } from './redirect-uri.ts';
import { OIDC_SCOPES } from './scopes.ts';
import type { ClientKind, Environment, Resource, TokenEndpointAuthMethod } from './store.ts';

export interface ClientSpec {
  kind: ClientKind;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  audiences: string[];
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  jwks: { keys: Record<string, unknown>[] } | null;
  jwksUri: string | null;
  /** OIDC Back-Channel Logout 1.0 §2.2. */
  backchannelLogoutUri: string | null;
  /** RFC 8693: registered audiences the client may exchange a person's access token for (confidential only). */
  tokenExchangeAudiences: string[];
  /** RFC 8628: the client may use the device authorization grant (a person signs in on another device). */
  deviceAuthorizationGrant: boolean;
}

export const isConfidential = (kind: ClientKind) => kind === 'web' || kind === 'service';

export interface RedirectProblem extends FieldProblem {
  uri: string;
}

/**
 * The redirect and post-logout URIs a client of an application in `environment` may not use. Depends on the
 * environment (localhost only in development), so changing an application's environment re-checks its clients.
 */
export function redirectProblems(
  spec: Pick<ClientSpec, 'kind' | 'redirectUris' | 'postLogoutRedirectUris'> &
    Partial<Pick<ClientSpec, 'jwksUri' | 'backchannelLogoutUri'>>,
  environment: Environment,
): RedirectProblem[] {
  const development = environment === 'development';
  const urls: RedirectProblem[] = [];
  if (spec.jwksUri) {
    const problem = registeredUrlProblem(spec.jwksUri, development);
    if (problem) urls.push({ path: 'body.jwks_uri', problem, uri: spec.jwksUri });
  }
  if (spec.backchannelLogoutUri) {
    const problem = registeredUrlProblem(spec.backchannelLogoutUri, development);
    if (problem) urls.push({ path: 'body.backchannel_logout_uri', problem, uri: spec.backchannelLogoutUri });
  }
  const context = { native: spec.kind === 'native', development: environment === 'development' };
  const check = (field: string, uris: string[]) =>
    uris.flatMap((uri, i) => {
      const problem = redirectUriProblem(uri, context);
      return problem ? [{ path: `body.${field}.${i}`, problem, uri }] : [];
    });
  return [
    ...check('redirect_uris', spec.redirectUris),
    ...check('post_logout_redirect_uris', spec.postLogoutRedirectUris),
    ...urls,
  ];
}

/**
 * RFC 7591 §2: a public client authenticates with `none`; a confidential one with a secret (client_secret_post) or
 * with keys it registered (private_key_jwt: `jwks` or `jwks_uri`, exactly one, public keys only).
 */
function authenticationProblems(spec: ClientSpec): FieldProblem[] {
  const method = spec.tokenEndpointAuthMethod;
  const problems: FieldProblem[] = [];
  if (isConfidential(spec.kind) === (method === 'none'))
    problems.push({
      path: 'body.token_endpoint_auth_method',
      problem: isConfidential(spec.kind)
        ? `a ${spec.kind} client authenticates with client_secret_post or private_key_jwt`
        : `a ${spec.kind} client is public: its method is none`,
    });
  if (method !== 'private_key_jwt') {
    if (spec.jwks !== null) problems.push({ path: 'body.jwks', problem: 'is only for private_key_jwt clients' });
    if (spec.jwksUri !== null) problems.push({ path: 'body.jwks_uri', problem: 'is only for private_key_jwt clients' });
    return problems;
  }
  if ((spec.jwks === null) === (spec.jwksUri === null))
    problems.push({ path: 'body.jwks', problem: 'a private_key_jwt client registers either jwks or jwks_uri' });
  if (spec.jwks !== null && spec.jwks.keys.length === 0)
    problems.push({ path: 'body.jwks.keys', problem: 'must hold at least one public key' });
  spec.jwks?.keys.forEach((key, i) => {
    const problem = jwkProblem(key);
    if (problem) problems.push({ path: `body.jwks.keys.${i}`, problem });
  });
  return problems;
}

/**
 * RFC 8693 token exchange is for confidential clients (docs/oauth.md "Token exchange"): an API's backend exchanging the
 * token it received. Each audience is a registered resource, as a token is only ever issued for one.
 */
function tokenExchangeProblems(spec: ClientSpec, resources: Resource[]): FieldProblem[] {
  if (spec.tokenExchangeAudiences.length > 0 && !isConfidential(spec.kind))
    return [
      {
        path: 'body.token_exchange_audiences',
        problem: `must be empty for a ${spec.kind} client: only web and service clients may exchange tokens`,
      },
    ];
  return spec.tokenExchangeAudiences.flatMap((audience, i) =>
    resources.some((r) => r.audience === audience)
      ? []
      : [{ path: `body.token_exchange_audiences.${i}`, problem: 'is not a registered resource audience' }],
  );
}

/** The audiences whose resources a client write must find registered: its audiences and its exchange audiences. */
export const namedAudiences = (spec: Pick<ClientSpec, 'audiences' | 'tokenExchangeAudiences'>) => [
  ...new Set([...spec.audiences, ...spec.tokenExchangeAudiences]),
];

/** `resources` are the registered resources named in `spec.audiences` and `spec.tokenExchangeAudiences`. */
export function clientProblems(spec: ClientSpec, environment: Environment, resources: Resource[]): FieldProblem[] {
  const problems: FieldProblem[] = redirectProblems(spec, environment).map(({ path, problem }) => ({ path, problem }));
  problems.push(...authenticationProblems(spec));

  // Audiences are the registered resources the client may ask tokens for: client credentials' `resource` for a
  // service client, RFC 8707 `resource` at sign-in for the others.
  spec.audiences.forEach((audience, i) => {
    if (!resources.some((r) => r.audience === audience))
      problems.push({ path: `body.audiences.${i}`, problem: 'is not a registered resource audience' });
  });
  problems.push(...tokenExchangeProblems(spec, resources));
  // A client's scopes come from the resources it may hold tokens for, by sign-in, client credentials or exchange:
  // a scope of an exchange audience serves only exchanges (client credentials and sign-in check their own audiences).
  const reachable = namedAudiences(spec);
  const ofAudiences = (scope: string) =>
    resources.some((r) => reachable.includes(r.audience) && r.scopes.includes(scope));

  if (spec.kind === 'service') {
    // RFC 8628 signs a person in: a service client has none (docs/oauth.md "Device authorization grant").
    if (spec.deviceAuthorizationGrant)
      problems.push({ path: 'body.device_authorization_grant', problem: 'must be false for a service client' });
    // A service client has no user and no browser: it only uses client_credentials (SPEC.md "Client kinds"), so
    // it has no sign-in to return to and no sign-out to return from.
    if (spec.redirectUris.length > 0)
      problems.push({ path: 'body.redirect_uris', problem: 'must be empty for a service client' });
    if (spec.postLogoutRedirectUris.length > 0)
      problems.push({ path: 'body.post_logout_redirect_uris', problem: 'must be empty for a service client' });
    if (spec.backchannelLogoutUri !== null)
      problems.push({ path: 'body.backchannel_logout_uri', problem: 'must be empty for a service client' });
    if (spec.audiences.length === 0)
      problems.push({ path: 'body.audiences', problem: 'a service client must be provisioned with audiences' });
    if (spec.scopes.length === 0)
      problems.push({ path: 'body.scopes', problem: 'a service client must be provisioned with scopes' });
    spec.scopes.forEach((scope, i) => {
      if (!ofAudiences(scope))
        problems.push({ path: `body.scopes.${i}`, problem: 'is not a scope of the provisioned audiences' });
    });
    return problems;
  }
  // A client that signs people in only with the device grant (a command-line tool, a TV app) redirects nowhere.
  if (spec.redirectUris.length === 0 && !spec.deviceAuthorizationGrant)
    problems.push({ path: 'body.redirect_uris', problem: `a ${spec.kind} client needs at least one redirect URI` });
  // A client that may ask for nothing can sign no one in; an empty list would only fail later, at /oauth/authorize.
  if (spec.scopes.length === 0)
    problems.push({ path: 'body.scopes', problem: `a ${spec.kind} client needs at least one scope, such as openid` });
  // SPEC.md "OAuth client": the OIDC scopes "plus resource scopes", here those of the client's audiences, which its
  // tokens then carry only when audienced to that resource (RFC 8707; src/oauth/resource-indicators.ts).
  spec.scopes.forEach((scope, i) => {
    if (!(OIDC_SCOPES as readonly string[]).includes(scope) && !ofAudiences(scope))
      problems.push({
        path: `body.scopes.${i}`,
        problem: `must be one of ${OIDC_SCOPES.join(', ')} or a scope of the client's audiences`,
      });
  });
  return problems;
}
