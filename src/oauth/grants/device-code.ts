// grant_type=urn:ietf:params:oauth:grant-type:device_code (RFC 8628 §3.4–3.5): the device polls with its device code.
// Each poll is one UPDATE by primary key (device-code-store.ts recordPoll), far cheaper than a sign-in; until the
// person decides it answers authorization_pending, or slow_down with the interval grown by 5 s when it came too soon.
// An approved code is redeemed once (its row deleted in the statement that makes the grant), then answers
// invalid_grant; a denied one access_denied, an expired one expired_token. Tokens are the code flow's: an access
// token (DPoP-bound when the poll carries a proof), an ID token for openid, a refresh token for offline_access.
import { tokenHash } from '../../crypto/primitives.ts';
import { GatehouseError, InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { requireDeviceGrant } from '../device-authorization.ts';
import { recordPoll, redeemDeviceCode } from '../device-code-store.ts';
import { refreshBindingOf, requireBindingIfRegistered } from '../dpop.ts';
import { InvalidGrant, InvalidTarget } from '../errors.ts';
import { grantIdOfDeviceCode } from '../ids.ts';
import { newRefreshToken } from '../refresh-token-value.ts';
import { tokenRequestResource, tokenTarget } from '../resource-indicators.ts';
import { userTokenResponse } from '../token-response.ts';
import type { Grant } from './types.ts';

export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: slow_down adds 5 seconds to the interval, for this and every later poll. */
export const SLOW_DOWN_SECONDS = 5;
/** A poll this much early still counts as on time: a client that waits exactly the interval meets network jitter. */
const POLL_LEEWAY_MS = 500;

export const deviceCodeGrant: Grant<'device_code' | 'resource'> = {
  grantType: DEVICE_CODE_GRANT,
  parameters: ['device_code', 'resource'],
  async handle(deps, params, context, binding) {
    const deviceCode = params.device_code;
    if (!deviceCode) throw new InvalidRequest('device_code is required');
    const client = await authenticateClient(deps, params, context);
    requireDeviceGrant(client);
    requireBindingIfRegistered(client, binding);
    const resource = tokenRequestResource(client, params.resource);

    const now = deps.clock();
    const deviceCodeHash = tokenHash(deviceCode);
    const poll = await recordPoll(deps.sql, {
      deviceCodeHash,
      clientId: client.id,
      now,
      slowDownSeconds: SLOW_DOWN_SECONDS,
      leewayMs: POLL_LEEWAY_MS,
    });
    if (!poll) throw new InvalidGrant('The device code is invalid, was issued to another client or was already used');
    if (poll.expiresAt <= now) throw new GatehouseError('expired_token');
    if (poll.status === 'pending') {
      if (poll.tooFast)
        throw new GatehouseError(
          'slow_down',
          `Polling too fast: wait ${poll.intervalSeconds} seconds between polls from now on`,
        );
      throw new GatehouseError('authorization_pending');
    }
    // RFC 6749 §5.2 answers token errors with 400; the catalogue's 403 is the authorization endpoint's page.
    if (poll.status === 'denied')
      throw new GatehouseError('access_denied', 'The person denied the request', { status: 400 });
    if (resource !== null && !poll.resources.includes(resource))
      throw new InvalidTarget('resource was not part of the device authorization request');

    const grantId = grantIdOfDeviceCode(deviceCode);
    const refresh = newRefreshToken(deps.sealKey, grantId);
    const grant = await redeemDeviceCode(deps.sql, {
      deviceCodeHash,
      clientId: client.id,
      now,
      grantId,
      refreshTokenHash: refresh.hash,
      refreshIdleExpiresAt: new Date(now.getTime() + deps.lifetimes.refreshIdleSeconds * 1000),
      refreshAbsoluteSeconds: deps.lifetimes.refreshAbsoluteSeconds,
      dpopJkt: refreshBindingOf(client, binding),
    });
    // Another poll redeemed it a moment ago, or the approving sign-in ended (sign-out, suspension) since.
    if (!grant) throw new InvalidGrant('The device code was already used, or the sign-in that approved it has ended');
    await deps.audit.record({
      event: 'oauth.device_code_redeemed',
      actor: client.id,
      subject: grant.identityId,
      ...context,
      details: { client_id: client.id, grant_id: grant.grantId, dpop_bound: binding !== null },
    });
    const target = await tokenTarget(deps.clients, client, deps.issuer, grant, resource);
    return userTokenResponse(deps.signer, grant, target, grant.refreshIssued ? refresh.value : null, binding);
  },
};
