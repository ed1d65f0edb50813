// TOTP status, disabling (password and a current code; the account falls back to enrollment-only sign-in), and
// recovery-code regeneration (password and a current code too; the old set dies with it). Enrollment itself lives in
// src/login/local/enrollment.ts.
import type { Executor } from '../db/pool.ts';
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { lockIdentity } from '../identity/store.ts';
import {
  countUnusedRecoveryCodes,
  deleteTotpAndRecoveryCodes,
  findTotpCredential,
  replaceRecoveryCodes,
} from '../login/local/credential-store.ts';
import { generateRecoveryCodes, recoveryCodeHash } from '../login/local/recovery-codes.ts';
import { revokeGrantsOfIdentity } from '../oauth/revocation.ts';
import type { SessionStart } from '../session/http.ts';
import { revokeIdentitySessions } from '../session/store.ts';
import type { Session } from '../session/types.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';
import { confirmFactors } from './reauth.ts';

export async function totpStatus(deps: AccountDeps, identityId: Sub) {
  const credential = await findTotpCredential(deps.sql, identityId);
  return {
    enabled: credential?.confirmed ?? false,
    recovery_codes_remaining: credential?.confirmed ? await countUnusedRecoveryCodes(deps.sql, identityId) : 0,
  };
}

/**
 * Removes TOTP and the recovery codes, ends every other session and every OAuth grant (each was issued at a
 * strength the account no longer has), and replaces the caller's session by an enrollment-only one through
 * `replaceSession`, all in one transaction: no state where the factor is gone but an old session or refresh
 * token still stands.
 */
export async function disableTotp(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  input: { password: string; code: string },
  replaceSession: (tx: Executor, start: SessionStart) => Promise<unknown>,
): Promise<void> {
  const id = session.identityId;
  if (!(await findTotpCredential(deps.sql, id))?.confirmed) throw new GatehouseError('totp_not_enrolled');
  await confirmFactors(deps, facts, id, { password: input.password, totp: input.code });
  const now = deps.clock();
  const outcome = await deps.sql.begin(async (tx) => {
    // First, as every change of the identity's factors does (src/login/step-up/new-second-factor.ts), so this and a
    // passkey registered meanwhile take their locks in one order.
    await lockIdentity(tx, id);
    await deleteTotpAndRecoveryCodes(tx, id);
    const revoked = await revokeIdentitySessions(tx, id, now, session.id);
    const grantsRevoked = await revokeGrantsOfIdentity(tx, id, now);
    // One factor left: the caller's session becomes one that can only enroll a second factor again.
    await replaceSession(tx, {
      identityId: id,
      aal: 'aal1',
      amr: ['pwd'],
      authTime: session.authTime,
      pending: 'enrollment',
    });
    return { revoked, grantsRevoked };
  });
  await deps.audit.record({
    event: 'totp.disabled',
    actor: id,
    subject: id,
    ...facts,
    details: { sessions_revoked: outcome.revoked, grants_revoked: outcome.grantsRevoked },
  });
}

/**
 * New recovery codes replace the old set. Recovery codes are a sign-in factor, so, as for every other factor change,
 * a session alone is not enough: the password and a current TOTP code are asked for again (reauth.ts), so whoever
 * holds a stolen session cannot mint themselves a way back in.
 */
export async function regenerateRecoveryCodes(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  input: { password: string; code: string },
): Promise<string[]> {
  const id = session.identityId;
  if (session.aal !== 'aal2' || !(await findTotpCredential(deps.sql, id))?.confirmed)
    throw new GatehouseError('totp_not_enrolled');
  await confirmFactors(deps, facts, id, { password: input.password, totp: input.code });
  const codes = generateRecoveryCodes();
  await replaceRecoveryCodes(
    deps.sql,
    id,
    codes.map((code) => recoveryCodeHash(deps.secrets.recoveryPepper, id, code)),
  );
  await deps.audit.record({ event: 'recovery_codes.regenerated', actor: id, subject: id, ...facts });
  return codes;
}
