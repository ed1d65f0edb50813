// grant_type=authorization_code (RFC 6749 §4.1.3, PKCE RFC 7636 §4.5; a code bound by dpop_jkt, RFC 9449 §10). The
// code is consumed atomically, its row deleted; a code presented again revokes everything issued from it (RFC 6749
// §4.1.2, DESIGN.md "Authorization code"), found through the grant the code names.
import { normalizeEmptyPath } from '../../clients/uri-normalization.ts';
import { tokenHash } from '../../crypto/primitives.ts';
import { InvalidRequest } from '../../http/errors.ts';
import { authenticateClient } from '../client-auth.ts';
import { consumeAuthorizationCode, findAuthorizationCode } from '../code-store.ts';
import { type DpopBinding, refreshBindingOf, requireBindingIfRegistered, requireCodeKey } from '../dpop.ts';
import { InvalidGrant, InvalidTarget, UnauthorizedClient } from '../errors.ts';
import { recordGrantRevoked } from '../grant-revoked-audit.ts';
import { revokeGrantIfExists } from '../grant-store.ts';
import { grantIdOfCode } from '../ids.ts';
import { isCodeVerifier, s256Challenge } from '../pkce.ts';
import { newRefreshToken } from '../refresh-token-value.ts';
import { tokenRequestResource, tokenTarget } from '../resource-indicators.ts';
import { userTokenResponse } from '../token-response.ts';
import type { Grant, GrantDeps } from './types.ts';

const required = (value: string | undefined, name: string): string => {
  if (!value) throw new InvalidRequest(`${name} is required`);
  return value;
};

/** A code presented again, whose grant was just revoked: recorded when this ended it, and the answer says so. */
async function refuseReuse(deps: GrantDeps, clientId: string, grantId: string, revoked: boolean): Promise<never> {
  if (revoked) await recordGrantRevoked(deps.audit, { clientId, grantId, reason: 'authorization_code_reuse' });
  throw new InvalidGrant('The authorization code was already used; every token issued from it is revoked');
}

/** Why an exchange that matched nothing failed; a reused code also revokes its grant. */
async function refuse(
  deps: GrantDeps,
  presented: { code: string; hash: string },
  asked: { clientId: string; redirectUri: string; challenge: string; resource: string | null },
  binding: DpopBinding | null,
): Promise<never> {
  const { clientId, redirectUri, challenge } = asked;
  const now = deps.clock();
  const code = await findAuthorizationCode(deps.sql, presented.hash, now);
  if (!code) {
    // The exchange deleted the row. The grant it made is named by the code, which only its holder can compute, so a
    // grant under that id means the code was exchanged before: a replay, however long ago.
    const grantId = grantIdOfCode(presented.code);
    const grant = await revokeGrantIfExists(deps.sql, grantId, now);
    if (grant.found) return refuseReuse(deps, clientId, grantId, grant.revoked);
    throw new InvalidGrant('The authorization code is invalid');
  }
  // A row marked used was exchanged by an earlier release, which kept it and made the grant under the id it holds.
  if (code.usedAt !== null)
    return refuseReuse(deps, clientId, code.grantId, (await revokeGrantIfExists(deps.sql, code.grantId, now)).revoked);
  if (code.expiresAt <= now) throw new InvalidGrant('The authorization code has expired');
  if (code.clientId !== clientId) throw new InvalidGrant('The authorization code was issued to another client');
  if (code.redirectUri !== redirectUri)
    throw new InvalidGrant('redirect_uri does not match the one in the authorization request');
  if (code.codeChallenge !== challenge) throw new InvalidGrant('code_verifier does not match the code_challenge');
  if (asked.resource !== null && !code.resources.includes(asked.resource))
    throw new InvalidTarget('resource was not part of the authorization request');
  requireCodeKey(code.dpopJkt, binding);
  if (!code.sessionLive) throw new InvalidGrant('The sign-in behind the authorization code has ended; sign in again');
  throw new InvalidGrant('The authorization code is invalid');
}

export const authorizationCodeGrant: Grant<'code' | 'redirect_uri' | 'code_verifier' | 'resource'> = {
  grantType: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'code_verifier', 'resource'],
  async handle(deps, params, context, binding) {
    const code = required(params.code, 'code');
    // Compared as the authorization request's was: an empty path is `/` (src/clients/uri-normalization.ts).
    const redirectUri = normalizeEmptyPath(required(params.redirect_uri, 'redirect_uri'));
    const verifier = required(params.code_verifier, 'code_verifier');
    if (!isCodeVerifier(verifier))
      throw new InvalidRequest('code_verifier must be 43-128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)');
    const client = await authenticateClient(deps, params, context);
    if (client.kind === 'service') throw new UnauthorizedClient('A service client may only use client_credentials');
    requireBindingIfRegistered(client, binding);
    const resource = tokenRequestResource(client, params.resource);

    const now = deps.clock();
    const codeHash = tokenHash(code);
    const challenge = s256Challenge(verifier);
    const asked = { clientId: client.id, redirectUri, challenge, resource };
    const grantId = grantIdOfCode(code);
    const refresh = newRefreshToken(deps.sealKey, grantId);
    const grant = await consumeAuthorizationCode(deps.sql, {
      codeHash,
      grantId,
      clientId: client.id,
      redirectUri,
      challenge,
      resource,
      now,
      refreshTokenHash: refresh.hash,
      refreshIdleExpiresAt: new Date(now.getTime() + deps.lifetimes.refreshIdleSeconds * 1000),
      refreshAbsoluteSeconds: deps.lifetimes.refreshAbsoluteSeconds,
      dpopJkt: refreshBindingOf(client, binding),
      proofJkt: binding?.jkt ?? null,
    });
    if (!grant) return refuse(deps, { code, hash: codeHash }, asked, binding);
    const target = await tokenTarget(deps.clients, client, deps.issuer, grant, resource);
    return userTokenResponse(deps.signer, grant, target, grant.refreshIssued ? refresh.value : null, binding);
  },
};
