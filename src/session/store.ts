// The only SQL for the sessions table. Lookups and revocations are single statements, so a revoked session is
// refused by every node at once.
import { randomBytes } from 'node:crypto';
import { randomToken, tokenHash } from '../crypto/primitives.ts';
import type { Executor } from '../db/pool.ts';
import type { Sub } from '../identity/ids.ts';
import type { Aal, PendingStep, Session, SessionLifetimes } from './types.ts';

interface SessionRow {
  id: string;
  identity_id: string;
  aal: Aal;
  amr: string[];
  auth_time: Date;
  pending_step: PendingStep | null;
  created_at: Date;
  last_seen_at: Date;
  idle_expires_at: Date;
  absolute_expires_at: Date;
  client_ip: string | null;
  user_agent: string | null;
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  identityId: row.identity_id as Sub,
  aal: row.aal,
  amr: row.amr,
  authTime: row.auth_time,
  pending: row.pending_step,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  idleExpiresAt: row.idle_expires_at,
  absoluteExpiresAt: row.absolute_expires_at,
  clientIp: row.client_ip,
  userAgent: row.user_agent,
});

export interface NewSession {
  identityId: Sub;
  aal: Aal;
  amr: string[];
  authTime: Date;
  pending: PendingStep | null;
  clientIp: string | null;
  userAgent: string | null;
}

const plusSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/** Returns the cookie value (shown to the browser once, stored only hashed) and the session. */
export async function insertSession(
  sql: Executor,
  input: NewSession,
  lifetimes: SessionLifetimes,
  now: Date,
): Promise<{ token: string; session: Session }> {
  const token = randomToken();
  const id = `ses_${randomBytes(16).toString('base64url')}`;
  const absolute = plusSeconds(input.authTime, lifetimes.absoluteSeconds);
  const idle = new Date(Math.min(plusSeconds(now, lifetimes.idleSeconds).getTime(), absolute.getTime()));
  const [row] = await sql<SessionRow[]>`
    insert into sessions (id, token_hash, identity_id, aal, amr, auth_time, pending_step, client_ip, user_agent,
                          created_at, last_seen_at, idle_expires_at, absolute_expires_at)
    values (${id}, ${tokenHash(token)}, ${input.identityId}, ${input.aal}, ${input.amr}, ${input.authTime},
            ${input.pending}, ${input.clientIp}, ${input.userAgent?.slice(0, 512) ?? null}, ${now}, ${now},
            ${idle}, ${absolute})
    returning *`;
  if (!row) throw new Error('session insert returned no row');
  return { token, session: toSession(row) };
}

/** Minimum time between idle-expiry extensions, so ordinary requests do not write on every call. */
const TOUCH_INTERVAL_SECONDS = 60;

export async function findLiveSession(
  sql: Executor,
  token: string,
  lifetimes: SessionLifetimes,
  now: Date,
): Promise<Session | null> {
  // A session is only as good as its identity: once the identity is suspended or deleted, every node refuses the
  // cookie on its next request, even a session established while the suspension was being committed. The state is
  // read in this statement (not by a second call into src/identity) to keep one round trip on every request.
  const [row] = await sql<SessionRow[]>`
    select s.* from sessions s
    where s.token_hash = ${tokenHash(token)} and s.revoked_at is null
      and s.idle_expires_at > ${now} and s.absolute_expires_at > ${now}
      and exists (select 1 from identities i where i.id = s.identity_id and i.state = 'active')`;
  if (!row) return null;
  if (now.getTime() - row.last_seen_at.getTime() >= TOUCH_INTERVAL_SECONDS * 1000) {
    const idle = new Date(
      Math.min(plusSeconds(now, lifetimes.idleSeconds).getTime(), row.absolute_expires_at.getTime()),
    );
    await sql`update sessions set last_seen_at = ${now}, idle_expires_at = ${idle} where id = ${row.id}`;
    row.last_seen_at = now;
    row.idle_expires_at = idle;
  }
  return toSession(row);
}

export async function revokeSessionById(sql: Executor, id: string, now: Date, identityId?: Sub): Promise<boolean> {
  const rows = identityId
    ? await sql`update sessions set revoked_at = ${now} where id = ${id} and identity_id = ${identityId} and revoked_at is null returning id`
    : await sql`update sessions set revoked_at = ${now} where id = ${id} and revoked_at is null returning id`;
  return rows.length > 0;
}

/** Revokes every live session of an identity except `keepId`; returns how many ended. */
export async function revokeIdentitySessions(
  sql: Executor,
  identityId: Sub,
  now: Date,
  keepId: string | null = null,
): Promise<number> {
  const rows = await sql`
    update sessions set revoked_at = ${now}
    where identity_id = ${identityId} and revoked_at is null and id is distinct from ${keepId}
    returning id`;
  return rows.length;
}

/**
 * After a second factor was added: every other live single-factor session of the identity (complete, or waiting for
 * enrollment) now waits for that factor, as a sign-in by its method would from now on. Returns how many changed.
 */
export async function awaitSecondStepInOtherSessions(sql: Executor, identityId: Sub, keepId: string): Promise<number> {
  const rows = await sql`
    update sessions set pending_step = 'second_factor'
    where identity_id = ${identityId} and revoked_at is null and aal = 'aal1' and id <> ${keepId}
      and pending_step is distinct from 'second_factor'
    returning id`;
  return rows.length;
}

export async function listLiveSessions(sql: Executor, identityId: Sub, now: Date): Promise<Session[]> {
  const rows = await sql<SessionRow[]>`
    select * from sessions
    where identity_id = ${identityId} and revoked_at is null and idle_expires_at > ${now} and absolute_expires_at > ${now}
    order by last_seen_at desc`;
  return rows.map(toSession);
}

/** A session as a list of OAuth grants names the one each came from; `live` says whether it is still signed in. */
export interface SessionLabel {
  id: string;
  live: boolean;
  createdAt: Date;
  clientIp: string | null;
  userAgent: string | null;
}

/** The identity's sessions among `ids`, ended ones included (housekeeping deletes those after a while). */
export async function findSessionLabels(
  sql: Executor,
  identityId: Sub,
  ids: string[],
  now: Date,
): Promise<SessionLabel[]> {
  if (ids.length === 0) return [];
  const rows = await sql<
    { id: string; live: boolean; created_at: Date; client_ip: string | null; user_agent: string | null }[]
  >`
    select id, created_at, client_ip, user_agent,
           (revoked_at is null and idle_expires_at > ${now} and absolute_expires_at > ${now}) as live
    from sessions where identity_id = ${identityId} and id = any(${ids}::text[])`;
  return rows.map((r) => ({
    id: r.id,
    live: r.live,
    createdAt: r.created_at,
    clientIp: r.client_ip,
    userAgent: r.user_agent,
  }));
}

/** Housekeeping: sessions that ended (revoked, idle or past their absolute limit) before `before`. */
export async function deleteEndedSessions(sql: Executor, before: Date): Promise<number> {
  // idle_expires_at never exceeds absolute_expires_at, so it alone says when an unrevoked session ended.
  const rows = await sql`delete from sessions where revoked_at < ${before} or idle_expires_at < ${before} returning id`;
  return rows.length;
}
