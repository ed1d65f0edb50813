// grant_type=refresh_token (RFC 6749 §6). SPEC.md's token response carries an ID token whenever `openid` was
// granted, so a refresh returns a fresh one under OIDC Core §12.2: the sign-in's sub, aud, azp, auth_time, acr, amr,
// sid and nonce (the sign-in's rules apply, and relying parties check the nonce), a new iat and at_hash.
// RFC 6749 §6: `scope` may ask for less than the grant holds, never more (invalid_scope, and the presented token stays
// usable); the narrower scope is this response's only, the grant keeps its own for the next refresh. The ID token
// comes only while `openid` is in the scope issued (OIDC Core §12.2 ties it to an openid request).
import { formatScope, parseScope } from '../../clients/scopes.ts';
import { echoInput, InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { requireBindingIfRegistered } from '../dpop.ts';
import { InvalidScope, UnauthorizedClient } from '../errors.ts';
import { type GrantFacts, narrowGrantScope } from '../grant-store.ts';
import { rotateRefresh } from '../refresh-rotation.ts';
import { tokenRequestResource, tokenTarget } from '../resource-indicators.ts';
import { userTokenResponse } from '../token-response.ts';
import type { Grant } from './types.ts';

export const refreshTokenGrant: Grant<'refresh_token' | 'resource' | 'scope'> = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'resource', 'scope'],
  async handle(deps, params, context, binding) {
    if (!params.refresh_token) throw new InvalidRequest('refresh_token is required');
    const client = await authenticateClient(deps, params, context);
    requireBindingIfRegistered(client, binding);
    // Refresh tokens only while the client allows them: an administrator who takes offline_access away from a
    // client ends its refreshing too, not only its next sign-in's (RFC 6749 §5.2 unauthorized_client).
    if (!client.scopes.includes('offline_access'))
      throw new UnauthorizedClient('The client is no longer allowed refresh tokens (offline_access)');
    // RFC 8707 §2.2: a refresh may ask for a token for another resource of the authorization, checked before rotating.
    const resource = tokenRequestResource(client, params.resource);
    // RFC 6749 §3.1: a parameter sent without a value is treated as omitted, and an omitted scope means the grant's.
    const requested = parseScope(params.scope || undefined);
    if (requested === null) throw new InvalidScope('scope is malformed');
    // What the grant holds that the client may still have (an administrator may have taken a scope away since).
    const held = (grant: GrantFacts) => grant.scope.split(' ').filter((scope) => client.scopes.includes(scope));
    const withinGrant = (grant: GrantFacts) => {
      const wider = requested.find((scope) => !held(grant).includes(scope));
      if (wider !== undefined) throw new InvalidScope(`scope ${echoInput(wider)} is not part of the grant`);
    };
    const { grant, refreshToken } = await rotateRefresh(
      deps,
      client.id,
      params.refresh_token,
      resource,
      binding?.jkt ?? null,
      requested.length > 0 ? withinGrant : undefined,
    );
    const kept = held(grant);
    // A scope the administrator took away leaves the grant itself, so its tokens stop carrying it from this refresh
    // on (RFC 6749 §5.1 lets the issued scope differ).
    if (kept.length < grant.scope.split(' ').length) await narrowGrantScope(deps.sql, grant.grantId, client.scopes);
    // In the grant's order, so the issued scope reads the same however the request ordered it.
    const issued = requested.length > 0 ? kept.filter((scope) => requested.includes(scope)) : kept;
    const current = { ...grant, scope: formatScope(issued) };
    const target = await tokenTarget(deps.clients, client, deps.issuer, current, resource);
    return userTokenResponse(deps.signer, current, target, refreshToken, binding);
  },
};
