// The only SQL for device codes (RFC 8628). Every change is one statement: a poll updates its row by primary key
// (slow_down bookkeeping included), a decision flips a pending row once, and a redemption deletes the approved row
// while it creates the grant and refresh token, so of two concurrent polls exactly one gets tokens on any node.
import type { Executor } from '../db/pool.ts';
import { type GrantFacts, grantFactsOf } from './grant-store.ts';

export type DeviceCodeStatus = 'pending' | 'approved' | 'denied';

export interface NewDeviceCode {
  deviceCodeHash: string;
  userCodeHash: string;
  clientId: string;
  scope: string;
  resources: string[];
  userAgent: string | null;
  createdAt: Date;
  expiresAt: Date;
  intervalSeconds: number;
}

/** Inserts a device code; false when its user code collides with a stored one (the caller draws another). */
export async function insertDeviceCode(sql: Executor, d: NewDeviceCode): Promise<boolean> {
  const rows = await sql`
    insert into oauth_device_codes (device_code_hash, user_code_hash, client_id, scope, resources, user_agent,
      created_at, expires_at, interval_seconds)
    values (${d.deviceCodeHash}, ${d.userCodeHash}, ${d.clientId}, ${d.scope}, ${d.resources}, ${d.userAgent},
      ${d.createdAt}, ${d.expiresAt}, ${d.intervalSeconds})
    on conflict (user_code_hash) do nothing
    returning 1`;
  return rows.length === 1;
}

export interface Poll {
  status: DeviceCodeStatus;
  /** RFC 8707 resources the request named: a token request's `resource` must be one of them. */
  resources: string[];
  expiresAt: Date;
  /** The interval after this poll: grown by `slowDownSeconds` when this poll came too early. */
  intervalSeconds: number;
  /** This poll came sooner than the interval after the previous one (RFC 8628 §3.5 slow_down). */
  tooFast: boolean;
}

/**
 * Records a poll of the client's device code and says where it stands. A poll sooner than the stored interval after
 * the previous one grows the interval (§3.5: "for this and all subsequent requests"); `leewayMs` forgives network
 * jitter for a client that waits exactly the interval. Null when no such code of this client exists (never issued,
 * redeemed, or purged).
 */
export async function recordPoll(
  sql: Executor,
  p: { deviceCodeHash: string; clientId: string; now: Date; slowDownSeconds: number; leewayMs: number },
): Promise<Poll | null> {
  const [row] = await sql`
    update oauth_device_codes d set
      last_polled_at = ${p.now},
      -- Capped at a day: past the code's life anyway, and a client that keeps hammering cannot overflow the column.
      interval_seconds = case when prior.too_fast then least(d.interval_seconds + ${p.slowDownSeconds}, 86400)
                              else d.interval_seconds end
    from (
      select device_code_hash,
             last_polled_at is not null and status = 'pending'
               and ${p.now}::timestamptz < last_polled_at + make_interval(secs => interval_seconds)
                                               - make_interval(secs => ${p.leewayMs / 1000}) as too_fast
      from oauth_device_codes
      where device_code_hash = ${p.deviceCodeHash} and client_id = ${p.clientId}
      for update
    ) prior
    where d.device_code_hash = prior.device_code_hash
    returning d.status, d.resources, d.expires_at, d.interval_seconds, prior.too_fast`;
  if (!row) return null;
  return {
    status: row.status as DeviceCodeStatus,
    resources: row.resources as string[],
    expiresAt: row.expires_at as Date,
    intervalSeconds: row.interval_seconds as number,
    tooFast: row.too_fast as boolean,
  };
}

export interface DeviceRedemption {
  deviceCodeHash: string;
  clientId: string;
  now: Date;
  grantId: string;
  refreshTokenHash: string;
  refreshIdleExpiresAt: Date;
  refreshAbsoluteSeconds: number;
  /** The JWK thumbprint the grant's refresh tokens are bound to (RFC 9449 §5); null to leave them unbound. */
  dpopJkt: string | null;
}

/**
 * Redeems an approved, unexpired device code whose approving session is still live and identity active (as a code
 * exchange requires, code-store.ts): deletes the row and creates its grant, and the refresh token when offline_access
 * was granted, in one statement. Null when nothing matched.
 */
export async function redeemDeviceCode(
  sql: Executor,
  r: DeviceRedemption,
): Promise<(GrantFacts & { refreshIssued: boolean }) | null> {
  const [row] = await sql`
    with used as (
      delete from oauth_device_codes d
      where d.device_code_hash = ${r.deviceCodeHash} and d.client_id = ${r.clientId} and d.status = 'approved'
        and d.expires_at > ${r.now}
        and exists (select 1 from sessions s join identities i on i.id = s.identity_id
                    where s.id = d.session_id and s.identity_id = d.identity_id and s.revoked_at is null
                      and s.idle_expires_at > ${r.now} and s.absolute_expires_at > ${r.now} and i.state = 'active'
                    for share of s, i)
      returning *
    ), grant_row as (
      insert into oauth_grants (id, client_id, identity_id, session_id, scope, resources, auth_time, acr, amr, nonce,
        dpop_jkt, created_at, expires_at)
      select ${r.grantId}, client_id, identity_id, session_id, scope, resources, auth_time, acr, amr, null,
             ${r.dpopJkt}::text, ${r.now}, auth_time + make_interval(secs => ${r.refreshAbsoluteSeconds})
      from used returning id, expires_at
    ), refresh as (
      insert into oauth_refresh_tokens (token_hash, grant_id, client_id, created_at, expires_at, names_grant)
      select ${r.refreshTokenHash}, g.id, u.client_id, ${r.now},
             least(${r.refreshIdleExpiresAt}::timestamptz, g.expires_at), true
      from used u cross join grant_row g
      where 'offline_access' = any(string_to_array(u.scope, ' ')) and g.expires_at > ${r.now}
      returning token_hash
    )
    select u.*, exists (select 1 from refresh) as refresh_issued from used u`;
  if (!row) return null;
  return {
    ...grantFactsOf({ ...row, grant_id: r.grantId, nonce: null, dpop_jkt: r.dpopJkt }),
    refreshIssued: row.refresh_issued as boolean,
  };
}

/** A pending device code as the /device page shows it. */
export interface PendingDeviceCode {
  clientId: string;
  scope: string;
  resources: string[];
  userAgent: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export async function findPendingDeviceCode(
  sql: Executor,
  userCodeHash: string,
  now: Date,
): Promise<PendingDeviceCode | null> {
  const [row] = await sql`
    select client_id, scope, resources, user_agent, created_at, expires_at from oauth_device_codes
    where user_code_hash = ${userCodeHash} and status = 'pending' and expires_at > ${now}`;
  if (!row) return null;
  return {
    clientId: row.client_id as string,
    scope: row.scope as string,
    resources: row.resources as string[],
    userAgent: row.user_agent as string | null,
    createdAt: row.created_at as Date,
    expiresAt: row.expires_at as Date,
  };
}

export interface Decision {
  userCodeHash: string;
  now: Date;
  approved: boolean;
  identityId: string;
  sessionId: string;
  authTime: Date;
  acr: string;
  amr: string[];
}

/**
 * Approves or denies a pending, unexpired device code, once: the first decision wins, on any node. The approving
 * session's facts are what the grant is made from. Returns the code's client and scope, or null when there was no
 * such pending code.
 */
export async function decideDeviceCode(
  sql: Executor,
  d: Decision,
): Promise<{ clientId: string; scope: string } | null> {
  const [row] = await sql`
    update oauth_device_codes set
      status = ${d.approved ? 'approved' : 'denied'}, decided_at = ${d.now}, identity_id = ${d.identityId},
      session_id = ${d.sessionId}, auth_time = ${d.authTime}, acr = ${d.acr}, amr = ${d.amr}
    where user_code_hash = ${d.userCodeHash} and status = 'pending' and expires_at > ${d.now}
    returning client_id, scope`;
  return row ? { clientId: row.client_id as string, scope: row.scope as string } : null;
}
