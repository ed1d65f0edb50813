// grant_type=client_credentials (RFC 6749 §4.4) for `service` clients, with a resource indicator (RFC 8707). A
// token is issued only for an audience and scopes the client was provisioned with; anything else is refused, never
// silently narrowed. Client and resource come from the cached directory: no database work when warm.

import { formatScope, parseScope } from '../../clients/scopes.ts';
import { normalizeEmptyPath } from '../../clients/uri-normalization.ts';
import { InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { requireBindingIfRegistered } from '../dpop.ts';
import { InvalidScope, InvalidTarget, UnauthorizedClient } from '../errors.ts';
import type { Grant } from './types.ts';

export const clientCredentialsGrant: Grant<'scope' | 'resource'> = {
  grantType: 'client_credentials',
  parameters: ['scope', 'resource'],
  async handle(deps, params, context, binding) {
    const client = await authenticateClient(deps, params, context);
    requireBindingIfRegistered(client, binding);
    // Spelled as registered audiences are: an empty path is `/` (src/clients/uri-normalization.ts).
    const resource = params.resource && normalizeEmptyPath(params.resource);
    if (!resource) throw new InvalidRequest('resource is required: name the audience the token is for (RFC 8707)');
    if (client.kind !== 'service') throw new UnauthorizedClient('Only service clients may use client_credentials');
    const resourceScopes = client.audiences.includes(resource) ? await deps.clients.findResourceScopes(resource) : null;
    if (!resourceScopes) throw new InvalidTarget('The client is not provisioned for this resource');
    const scopes = parseScope(params.scope);
    if (scopes === null) throw new InvalidScope('scope is malformed');
    if (scopes.length === 0) throw new InvalidScope('scope is required');
    const refused = scopes.find((s) => !client.scopes.includes(s) || !resourceScopes.includes(s));
    if (refused !== undefined)
      throw new InvalidScope(`The client is not provisioned for scope ${refused} at this resource`);
    const scope = formatScope(scopes);
    const accessToken = await deps.signer.signAccessToken({
      sub: client.id,
      clientId: client.id,
      audience: resource,
      scope,
      ...(binding ? { jkt: binding.jkt } : {}),
    });
    return {
      access_token: accessToken,
      token_type: binding ? 'DPoP' : 'Bearer',
      expires_in: deps.signer.accessTokenTtlSeconds,
      scope,
    };
  },
};
