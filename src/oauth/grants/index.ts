// The one list of grant types the token endpoint serves.
import { authorizationCodeGrant } from './authorization-code.ts';
import { clientCredentialsGrant } from './client-credentials.ts';
import { deviceCodeGrant } from './device-code.ts';
import { refreshTokenGrant } from './refresh-token.ts';
import { tokenExchangeGrant } from './token-exchange.ts';
import type { Grant } from './types.ts';

export const grants: readonly Grant[] = [
  authorizationCodeGrant,
  refreshTokenGrant,
  clientCredentialsGrant,
  tokenExchangeGrant,
  deviceCodeGrant,
] as Grant[];

export const grantTypes = grants.map((g) => g.grantType);

export const findGrant = (grantType: string) => grants.find((g) => g.grantType === grantType);
