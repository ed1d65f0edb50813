// grant_type=refresh_token (RFC 6749 §6). SPEC.md's token response carries an ID token whenever `openid` was
// granted, so a refresh returns a fresh one under OIDC Core §12.2: the sign-in's sub, aud, azp, auth_time, acr, amr,
// sid and nonce (the sign-in's rules apply, and relying parties check the nonce), a new iat and at_hash.
import { InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { InvalidTarget, UnauthorizedClient } from '../errors.ts';
import { rotateRefresh } from '../refresh-rotation.ts';
import { tokenTarget } from '../resource-indicators.ts';
import { narrowGrantScope } from '../store.ts';
import { userTokenResponse } from '../token-response.ts';
import type { Grant } from './types.ts';

export const refreshTokenGrant: Grant<'refresh_token' | 'resource'> = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'resource'],
  async handle(deps, params, context) {
    if (!params.refresh_token) throw new InvalidRequest('refresh_token is required');
    const client = await authenticateClient(deps, params, context);
    // Refresh tokens only while the client allows them: an administrator who takes offline_access away from a
    // client ends its refreshing too, not only its next sign-in's (RFC 6749 §5.2 unauthorized_client).
    if (!client.scopes.includes('offline_access'))
      throw new UnauthorizedClient('The client is no longer allowed refresh tokens (offline_access)');
    // RFC 8707 §2.2: a refresh may ask for a token for another resource of the authorization, checked before rotating.
    const resource = params.resource ?? null;
    if (resource !== null && !client.audiences.includes(resource))
      throw new InvalidTarget('resource is not a registered resource this client may use');
    const { grant, refreshToken } = await rotateRefresh(deps, client.id, params.refresh_token, resource);
    // Likewise any other scope the administrator took away: the grant keeps only what the client may still have, so
    // its tokens stop carrying it from this refresh on (RFC 6749 §5.1 lets the issued scope differ).
    const granted = grant.scope.split(' ');
    let current = grant;
    if (!granted.every((scope) => client.scopes.includes(scope))) {
      await narrowGrantScope(deps.sql, grant.grantId, client.scopes);
      current = { ...grant, scope: granted.filter((scope) => client.scopes.includes(scope)).join(' ') };
    }
    const target = await tokenTarget(deps.clients, client, deps.issuer, current, params.resource);
    return userTokenResponse(deps.signer, current, target, refreshToken);
  },
};
