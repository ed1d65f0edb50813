// POST /oauth/device_authorization (RFC 8628 §3.1–3.2): a client an administrator allowed the grant asks for a device
// code and a user code for `scope` (and a `resource`, RFC 8707), checked as at the authorization endpoint. The device
// shows the user code and verification URI; the person approves on /device (device-approval.ts) while the device
// polls the token endpoint (grants/device-code.ts). Both codes are stored hashed only.

import type { Audit } from '../audit/audit.ts';
import { parseScope } from '../clients/scopes.ts';
import type { Client } from '../clients/store.ts';
import { randomToken, tokenHash } from '../crypto/primitives.ts';
import type { Sql } from '../db/pool.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import type { ClientDirectory } from './client-directory.ts';
import { insertDeviceCode } from './device-code-store.ts';
import { MAX_USER_AGENT } from './device-description.ts';
import { InvalidScope, UnauthorizedClient } from './errors.ts';
import { checkRequestedResources, parseResources } from './resource-indicators.ts';
import { newUserCode, normalizeUserCode, userCodeHash } from './user-code.ts';

/** The page people approve on: short enough to type from a TV screen (RFC 8628 §3.3). */
export const VERIFICATION_PATH = '/device';
/** Draws before giving up on a free user code: with 2^34 codes, a second draw is already rare. */
const USER_CODE_DRAWS = 5;

export interface DeviceAuthorizationDeps {
  sql: Sql;
  clients: ClientDirectory;
  clock: () => Date;
  issuer: string;
  audit: Audit;
  ttlSeconds: number;
  intervalSeconds: number;
}

export interface DeviceAuthorizationResponse {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** RFC 8628 §3.1: only clients allowed the grant; a service client has no person to sign in. */
export function requireDeviceGrant(client: Client): void {
  if (!client.deviceAuthorizationGrant || client.kind === 'service')
    throw new UnauthorizedClient('This client may not use the device authorization grant');
}

export async function startDeviceAuthorization(
  deps: DeviceAuthorizationDeps,
  client: Client,
  form: { scope?: string | undefined; resource?: string | undefined },
  userAgent: string | undefined,
  context: AttemptContext,
): Promise<DeviceAuthorizationResponse> {
  requireDeviceGrant(client);
  const scopes = parseScope(form.scope);
  if (scopes === null) throw new InvalidScope('scope is malformed');
  const refused = scopes.find((s) => !client.scopes.includes(s));
  if (refused !== undefined) throw new InvalidScope(`The client may not request scope ${refused}`);
  const resources = form.resource === undefined ? [] : parseResources([form.resource]);
  await checkRequestedResources(deps.clients, client, resources, scopes);

  const deviceCode = randomToken();
  const now = deps.clock();
  let userCode: string | null = null;
  for (let draw = 0; draw < USER_CODE_DRAWS && userCode === null; draw++) {
    const candidate = newUserCode();
    const inserted = await insertDeviceCode(deps.sql, {
      deviceCodeHash: tokenHash(deviceCode),
      userCodeHash: userCodeHash(normalizeUserCode(candidate) as string),
      clientId: client.id,
      scope: scopes.join(' '),
      resources,
      userAgent: userAgent ? userAgent.slice(0, MAX_USER_AGENT) : null,
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.ttlSeconds * 1000),
      intervalSeconds: deps.intervalSeconds,
    });
    if (inserted) userCode = candidate;
  }
  if (userCode === null) throw new Error('No free user code after several draws');
  await deps.audit.record({
    event: 'oauth.device_authorization_requested',
    actor: client.id,
    ...context,
    details: { client_id: client.id, scope: scopes.join(' ') },
  });
  const verificationUri = `${deps.issuer}${VERIFICATION_PATH}`;
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_uri: verificationUri,
    verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: userCode })}`,
    expires_in: deps.ttlSeconds,
    interval: deps.intervalSeconds,
  };
}
