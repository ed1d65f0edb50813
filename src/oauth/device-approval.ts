// The /device page's decisions (RFC 8628 §3.3): the signed-in person types or confirms a user code, sees which
// client on which kind of device asks for which scopes, and approves or denies. Every wrong code counts against the
// guessing throttle (device-code-throttle.ts) before anything about the code is said. Approving records consent for
// the scopes, as the consent page does, and keeps the session's facts for the grant the device then redeems.
import type { Audit } from '../audit/audit.ts';
import { findResourcesByAudience } from '../clients/store.ts';
import type { Sql } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import { findProfile } from '../identity/store.ts';
import type { AttemptContext } from '../login/local/deps.ts';
import type { Session } from '../session/types.ts';
import type { ClientDirectory } from './client-directory.ts';
import { upsertConsent } from './consent-store.ts';
import { decideDeviceCode, findPendingDeviceCode } from './device-code-store.ts';
import type { DeviceCodeThrottle } from './device-code-throttle.ts';
import { type DeviceDescription, describeDeviceOf } from './device-description.ts';
import { displayUserCode, normalizeUserCode, userCodeHash } from './user-code.ts';

export interface DeviceApprovalDeps {
  sql: Sql;
  clients: ClientDirectory;
  clock: () => Date;
  audit: Audit;
  throttle: DeviceCodeThrottle;
}

export interface DeviceRequestView {
  user_code: string;
  client_name: string;
  device: DeviceDescription;
  scopes: string[];
  /** For each scope a resource defines, the names of the requested resources that define it (consent wording). */
  resource_names: Record<string, string[]>;
  requested_at: string;
  expires_at: string;
}

const wrongCode = () => new GatehouseError('invalid_user_code');

/** The normalised code and its pending request, or a counted failure. */
async function pendingRequest(deps: DeviceApprovalDeps, session: Session, typed: string, context: AttemptContext) {
  await deps.throttle.admit(session.identityId, context);
  const code = normalizeUserCode(typed);
  const pending = code === null ? null : await findPendingDeviceCode(deps.sql, userCodeHash(code), deps.clock());
  const client = pending ? await deps.clients.findClient(pending.clientId) : null;
  if (code === null || pending === null || client === null) {
    await deps.throttle.failed(session.identityId, context);
    throw wrongCode();
  }
  return { code, pending, client };
}

export async function showDeviceRequest(
  deps: DeviceApprovalDeps,
  session: Session,
  typed: string,
  context: AttemptContext,
): Promise<DeviceRequestView> {
  const { code, pending, client } = await pendingRequest(deps, session, typed, context);
  const scopes = pending.scope.split(' ').filter(Boolean);
  const resources = pending.resources.length > 0 ? await findResourcesByAudience(deps.sql, pending.resources) : [];
  const resourceNames = Object.fromEntries(
    scopes.map((scope) => [scope, resources.filter((r) => r.scopes.includes(scope)).map((r) => r.name)]),
  );
  return {
    user_code: displayUserCode(code),
    client_name: client.name,
    device: describeDeviceOf(pending.userAgent),
    scopes,
    resource_names: resourceNames,
    requested_at: pending.createdAt.toISOString(),
    expires_at: pending.expiresAt.toISOString(),
  };
}

export async function decideDeviceRequest(
  deps: DeviceApprovalDeps,
  session: Session,
  typed: string,
  approved: boolean,
  context: AttemptContext,
): Promise<{ status: 'approved' | 'denied'; client_name: string }> {
  const { code, client } = await pendingRequest(deps, session, typed, context);
  const now = deps.clock();
  const decided = await decideDeviceCode(deps.sql, {
    userCodeHash: userCodeHash(code),
    now,
    approved,
    identityId: session.identityId,
    sessionId: session.id,
    authTime: session.authTime,
    acr: session.aal,
    amr: session.amr,
  });
  // Decided by another tab or node in between, or expired: as if the code were wrong, without counting it again.
  if (!decided) throw wrongCode();
  if (approved)
    await upsertConsent(deps.sql, session.identityId, client.id, decided.scope.split(' ').filter(Boolean), now);
  await deps.audit.record({
    event: approved ? 'oauth.device_authorization_approved' : 'oauth.device_authorization_denied',
    actor: session.identityId,
    subject: client.id,
    ...context,
    details: { client_id: client.id, scope: decided.scope, session_id: session.id },
  });
  return { status: approved ? 'approved' : 'denied', client_name: client.name };
}

/** Who is about to approve, as they would recognise themselves (the page's "Signed in as"). */
export async function approvingAccount(deps: { sql: Sql }, session: Session) {
  const profile = await findProfile(deps.sql, session.identityId);
  return { name: profile?.displayName ?? '', email: profile?.email ?? null };
}
