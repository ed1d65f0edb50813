// The applications a person has granted access to (GET /account/grants) and the end of one's access
// (POST /account/grants/:client_id/revoke): every grant the client holds for them ends at once, and a third-party
// client must ask for consent again (ASVS 5 V10.7.3). See src/oauth/granted-access.ts.
import { NotFound } from '../http/errors.ts';
import { listGrantedAccess, revokeGrantedAccess } from '../oauth/granted-access.ts';
import type { Session } from '../session/types.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

const accessDeps = (deps: AccountDeps) => ({
  sql: deps.sql,
  clock: deps.clock,
  accessTokenTtlSeconds: deps.config.tokens.access_token_ttl_seconds,
});

export const listMyGrants = (deps: AccountDeps, current: Session) =>
  listGrantedAccess(accessDeps(deps), current.identityId, current.id);

export async function revokeMyGrant(
  deps: AccountDeps,
  facts: RequestFacts,
  current: Session,
  clientId: string,
): Promise<void> {
  const ended = await deps.sql.begin((tx) => revokeGrantedAccess(tx, current.identityId, clientId, deps.clock()));
  // Scoped to the caller's identity: a client that holds nothing of theirs is "not found", whoever else it serves.
  if (!ended) throw new NotFound('No application with this id holds a grant of yours');
  await deps.audit.record({
    event: 'oauth.access_revoked',
    actor: current.identityId,
    subject: current.identityId,
    ...facts,
    details: {
      client_id: clientId,
      grants_revoked: ended.grantsRevoked,
      consent_removed: ended.consentRemoved,
      codes_discarded: ended.codesDiscarded,
    },
  });
}
