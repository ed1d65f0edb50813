// What a client registration may say. Returns every problem with its field path, so the admin sees them all at once.
import type { FieldProblem } from '../http/errors.ts';
import { redirectUriProblem } from '../oauth/redirect-uri.ts';
import { OIDC_SCOPES } from '../oauth/scopes.ts';
import type { ClientKind, Environment, Resource } from './store.ts';

export interface ClientSpec {
  kind: ClientKind;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  scopes: string[];
  audiences: string[];
}

export const isConfidential = (kind: ClientKind) => kind === 'web' || kind === 'service';

/** `resources` are the registered resources named in `spec.audiences`. */
export function clientProblems(spec: ClientSpec, environment: Environment, resources: Resource[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const context = { native: spec.kind === 'native', development: environment === 'development' };
  const uriProblems = (field: string, uris: string[]) =>
    uris.forEach((uri, i) => {
      const problem = redirectUriProblem(uri, context);
      if (problem) problems.push({ path: `body.${field}.${i}`, problem });
    });
  uriProblems('redirect_uris', spec.redirectUris);
  uriProblems('post_logout_redirect_uris', spec.postLogoutRedirectUris);

  if (spec.kind === 'service') {
    // A service client has no user and no browser: it only uses client_credentials (SPEC.md "Client kinds").
    if (spec.redirectUris.length > 0)
      problems.push({ path: 'body.redirect_uris', problem: 'must be empty for a service client' });
    if (spec.audiences.length === 0)
      problems.push({ path: 'body.audiences', problem: 'a service client must be provisioned with audiences' });
    spec.audiences.forEach((audience, i) => {
      if (!resources.some((r) => r.audience === audience))
        problems.push({ path: `body.audiences.${i}`, problem: 'is not a registered resource audience' });
    });
    if (spec.scopes.length === 0)
      problems.push({ path: 'body.scopes', problem: 'a service client must be provisioned with scopes' });
    spec.scopes.forEach((scope, i) => {
      if (!resources.some((r) => spec.audiences.includes(r.audience) && r.scopes.includes(scope)))
        problems.push({ path: `body.scopes.${i}`, problem: 'is not a scope of the provisioned audiences' });
    });
    return problems;
  }
  if (spec.redirectUris.length === 0)
    problems.push({ path: 'body.redirect_uris', problem: `a ${spec.kind} client needs at least one redirect URI` });
  if (spec.audiences.length > 0)
    problems.push({ path: 'body.audiences', problem: 'only service clients are provisioned with audiences' });
  spec.scopes.forEach((scope, i) => {
    if (!(OIDC_SCOPES as readonly string[]).includes(scope))
      problems.push({ path: `body.scopes.${i}`, problem: `must be one of ${OIDC_SCOPES.join(', ')}` });
  });
  return problems;
}
