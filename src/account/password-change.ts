// POST /account/password/change: the current password, then the new one under the policy; every other session of
// the account ends, with the OAuth grants issued from them, since whoever knew the old password may hold one.
import { normalizeEmail } from '../identity/ids.ts';
import { findProfile } from '../identity/store.ts';
import { upsertPasswordCredential } from '../login/local/credential-store.ts';
import { revokeGrantsOfIdentity } from '../oauth/revocation.ts';
import { revokeIdentitySessions } from '../session/store.ts';
import type { Session } from '../session/types.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { hashAllowedPassword } from './password.ts';
import { confirmFactors } from './reauth.ts';

export async function changePassword(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  input: { currentPassword: string; newPassword: string },
): Promise<{ sessionsRevoked: number }> {
  const id = session.identityId;
  const { methodId } = await confirmFactors(deps, facts, id, { password: input.currentPassword });
  const profile = await findProfile(deps.sql, id);
  const phc = await hashAllowedPassword(
    deps,
    input.newPassword,
    { email: normalizeEmail(profile?.email ?? ''), displayName: profile?.displayName },
    { path: 'body.new_password', label: 'New password' },
  );
  const now = deps.clock();
  const outcome = await deps.sql.begin(async (tx) => {
    await upsertPasswordCredential(tx, methodId, id, phc);
    return {
      sessionsRevoked: await revokeIdentitySessions(tx, id, now, session.id),
      grantsRevoked: await revokeGrantsOfIdentity(tx, id, now, session.id),
    };
  });
  await deps.audit.record({
    event: 'password.changed',
    actor: id,
    subject: id,
    ...facts,
    details: { sessions_revoked: outcome.sessionsRevoked, grants_revoked: outcome.grantsRevoked },
  });
  return { sessionsRevoked: outcome.sessionsRevoked };
}
