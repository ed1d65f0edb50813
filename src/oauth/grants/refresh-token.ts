// grant_type=refresh_token (RFC 6749 §6). No ID token on refresh: the client already holds one for this sign-in.
import { InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { rotateRefresh } from '../refresh-rotation.ts';
import { userTokenResponse } from '../token-response.ts';
import type { Grant } from './types.ts';

export const refreshTokenGrant: Grant<'refresh_token'> = {
  grantType: 'refresh_token',
  parameters: ['refresh_token'],
  async handle(deps, params) {
    if (!params.refresh_token) throw new InvalidRequest('refresh_token is required');
    const client = await authenticateClient(deps.clients, deps.clientSecretKey, params);
    const { grant, refreshToken } = await rotateRefresh(deps, client.id, params.refresh_token);
    return userTokenResponse(deps.signer, deps.issuer, grant, { refreshToken, idToken: false });
  },
};
