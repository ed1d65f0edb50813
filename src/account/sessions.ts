// A person's own sessions: list them (the current one marked), end one, or end all others. Ending a session
// also ends the OAuth grants issued from it, so an application signed in from a lost device loses its refresh
// token too; grants issued from the caller's own session stay.
import { NotFound } from '../http/errors.ts';
import { revokeGrantsOfIdentity, revokeGrantsOfSession } from '../oauth/revocation.ts';
import { describeDevice } from '../session/device.ts';
import { listLiveSessions, revokeIdentitySessions, revokeSessionById } from '../session/store.ts';
import type { Session } from '../session/types.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

export async function listMySessions(deps: AccountDeps, current: Session) {
  const sessions = await listLiveSessions(deps.sql, current.identityId, deps.clock());
  return sessions.map((s) => ({
    id: s.id,
    current: s.id === current.id,
    aal: s.aal,
    created_at: s.createdAt.toISOString(),
    last_seen_at: s.lastSeenAt.toISOString(),
    client_ip: s.clientIp,
    user_agent: s.userAgent,
    /** The browser and system in words, e.g. "Firefox 128 on Ubuntu"; null when the User-Agent says nothing known. */
    device: describeDevice(s.userAgent),
  }));
}

export async function revokeMySession(
  deps: AccountDeps,
  facts: RequestFacts,
  current: Session,
  sessionId: string,
): Promise<void> {
  const now = deps.clock();
  // Scoped to the caller's identity: another person's session id is simply "not found".
  const grantsRevoked = await deps.sql.begin(async (tx) => {
    if (!(await revokeSessionById(tx, sessionId, now, current.identityId))) return null;
    return revokeGrantsOfSession(tx, current.identityId, sessionId, now);
  });
  if (grantsRevoked === null) throw new NotFound('No such session');
  await deps.audit.record({
    event: 'session.revoked',
    actor: current.identityId,
    subject: current.identityId,
    ...facts,
    details: { session_id: sessionId, grants_revoked: grantsRevoked },
  });
}

export async function revokeMyOtherSessions(deps: AccountDeps, facts: RequestFacts, current: Session): Promise<number> {
  const now = deps.clock();
  const outcome = await deps.sql.begin(async (tx) => ({
    revoked: await revokeIdentitySessions(tx, current.identityId, now, current.id),
    grantsRevoked: await revokeGrantsOfIdentity(tx, current.identityId, now, current.id),
  }));
  await deps.audit.record({
    event: 'session.revoked_others',
    actor: current.identityId,
    subject: current.identityId,
    ...facts,
    details: { revoked: outcome.revoked, grants_revoked: outcome.grantsRevoked },
  });
  return outcome.revoked;
}
