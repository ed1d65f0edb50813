// RFC 8707 resource indicators for user tokens. At the authorization endpoint `resource` names one or more
// registered resources the client is provisioned for (its audiences); the grant keeps them. Each access token is for
// one of them (one `aud` per token, DESIGN.md "Access token") and carries only that resource's granted scopes plus
// the OpenID scopes userinfo reads; without a resource it is Gatehouse's own (aud = issuer) with the OpenID scopes.
import { OIDC_SCOPES } from '../clients/scopes.ts';
import type { Client } from '../clients/store.ts';
import { normalizeEmptyPath } from '../clients/uri-normalization.ts';
import type { ClientDirectory } from './client-directory.ts';
import { InvalidScope, InvalidTarget } from './errors.ts';

/** How many resources one authorization may name: enough for an app and its few APIs, bounded all the same. */
export const MAX_RESOURCES = 10;

/** The scopes userinfo reads: kept in a resource's token so one token serves the API and userinfo. */
const USERINFO_SCOPES: readonly string[] = ['openid', 'profile', 'email'];
const isOidcScope = (scope: string) => (OIDC_SCOPES as readonly string[]).includes(scope);

/** RFC 8707 §2: an absolute URI without a fragment. */
function isResourceUri(value: string): boolean {
  if (!URL.canParse(value) || value.includes('#')) return false;
  return new URL(value).protocol !== '' && !/\s/.test(value);
}

/**
 * The distinct `resource` values of an authorization request, checked for syntax and count, each spelled as
 * registered audiences are (an empty path is `/`: src/clients/uri-normalization.ts).
 */
export function parseResources(values: string[]): string[] {
  const resources = [...new Set(values.map(normalizeEmptyPath))];
  if (resources.length > MAX_RESOURCES) throw new InvalidTarget(`At most ${MAX_RESOURCES} resources may be requested`);
  if (!resources.every(isResourceUri))
    throw new InvalidTarget('resource must be an absolute URI without a fragment (RFC 8707 §2)');
  return resources;
}

/**
 * Each requested resource is registered and one of the client's audiences, and every requested scope that is not an
 * OpenID one is defined by a requested resource: a resource scope asked for without its resource would land in no
 * token, so it is refused rather than silently dropped.
 */
export async function checkRequestedResources(
  clients: ClientDirectory,
  client: Client,
  resources: string[],
  scopes: string[],
): Promise<void> {
  const defined = new Set<string>();
  for (const resource of resources) {
    const scopesOfResource = client.audiences.includes(resource) ? await clients.findResourceScopes(resource) : null;
    if (!scopesOfResource) throw new InvalidTarget('resource is not a registered resource this client may use');
    for (const scope of scopesOfResource) defined.add(scope);
  }
  const stray = scopes.find((scope) => !isOidcScope(scope) && !defined.has(scope));
  if (stray !== undefined)
    throw new InvalidScope(
      resources.length === 0
        ? `Scope ${stray} belongs to a resource: name it with the resource parameter (RFC 8707)`
        : `Scope ${stray} is not defined by the requested resources`,
    );
}

/**
 * The `resource` of a token request (RFC 8707 §2.2), spelled as registered audiences are, or null when none was sent.
 * Checked before anything is spent or rotated, so a refused `resource` leaves the code or refresh token to retry with.
 */
export function tokenRequestResource(client: Client, sent: string | undefined): string | null {
  if (sent === undefined) return null;
  const resource = normalizeEmptyPath(sent);
  if (!client.audiences.includes(resource))
    throw new InvalidTarget('resource is not a registered resource this client may use');
  return resource;
}

export interface TokenTarget {
  audience: string;
  scope: string;
}

export interface TargetedGrant {
  scope: string;
  resources: string[];
}

/**
 * The audience and scope of a user access token from `grant`. `requested` is the token request's `resource`: it must
 * be one of the grant's resources (RFC 8707 §2.2, a refresh may change to another of them), still among the client's
 * audiences. Without one, a grant of exactly one resource is for that resource, and any other is for the issuer.
 */
export async function tokenTarget(
  clients: ClientDirectory,
  client: Client,
  issuer: string,
  grant: TargetedGrant,
  requested: string | null,
): Promise<TokenTarget> {
  const granted = grant.scope.split(' ').filter(Boolean);
  if (requested !== null && !grant.resources.includes(requested))
    throw new InvalidTarget('resource was not part of the authorization this grant came from');
  const audience = requested ?? (grant.resources.length === 1 ? grant.resources[0] : undefined);
  if (audience === undefined) return { audience: issuer, scope: granted.filter(isOidcScope).join(' ') };
  const defined = client.audiences.includes(audience) ? await clients.findResourceScopes(audience) : null;
  if (!defined) throw new InvalidTarget('The client may no longer use this resource');
  const scope = granted.filter((s) => USERINFO_SCOPES.includes(s) || defined.includes(s)).join(' ');
  return { audience, scope };
}
