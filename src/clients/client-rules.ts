// What a client registration may say. Returns every problem with its field path, so the admin sees them all at once.
// The lists are checked as sent (repeats included), so `body.scopes.2` is the third scope the caller sent.
import type { FieldProblem } from '../http/errors.ts';
import { redirectUriProblem } from './redirect-uri.ts';
import { OIDC_SCOPES } from './scopes.ts';
import type { ClientKind, Environment, Resource } from './store.ts';

export interface ClientSpec {
  kind: ClientKind;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  audiences: string[];
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
  spec: Pick<ClientSpec, 'kind' | 'redirectUris' | 'postLogoutRedirectUris'>,
  environment: Environment,
): RedirectProblem[] {
  const context = { native: spec.kind === 'native', development: environment === 'development' };
  const check = (field: string, uris: string[]) =>
    uris.flatMap((uri, i) => {
      const problem = redirectUriProblem(uri, context);
      return problem ? [{ path: `body.${field}.${i}`, problem, uri }] : [];
    });
  return [
    ...check('redirect_uris', spec.redirectUris),
    ...check('post_logout_redirect_uris', spec.postLogoutRedirectUris),
  ];
}

/** `resources` are the registered resources named in `spec.audiences`. */
export function clientProblems(spec: ClientSpec, environment: Environment, resources: Resource[]): FieldProblem[] {
  const problems: FieldProblem[] = redirectProblems(spec, environment).map(({ path, problem }) => ({ path, problem }));

  // Audiences are the registered resources the client may ask tokens for: client credentials' `resource` for a
  // service client, RFC 8707 `resource` at sign-in for the others.
  spec.audiences.forEach((audience, i) => {
    if (!resources.some((r) => r.audience === audience))
      problems.push({ path: `body.audiences.${i}`, problem: 'is not a registered resource audience' });
  });
  const ofAudiences = (scope: string) =>
    resources.some((r) => spec.audiences.includes(r.audience) && r.scopes.includes(scope));

  if (spec.kind === 'service') {
    // A service client has no user and no browser: it only uses client_credentials (SPEC.md "Client kinds"), so
    // it has no sign-in to return to and no sign-out to return from.
    if (spec.redirectUris.length > 0)
      problems.push({ path: 'body.redirect_uris', problem: 'must be empty for a service client' });
    if (spec.postLogoutRedirectUris.length > 0)
      problems.push({ path: 'body.post_logout_redirect_uris', problem: 'must be empty for a service client' });
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
  if (spec.redirectUris.length === 0)
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
