// TOTP status, disabling (password and a current code; the account falls back to enrollment-only sign-in), and
// recovery-code regeneration (the old set dies with it). Enrollment itself lives in src/login/local/enrollment.ts.
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import {
  countUnusedRecoveryCodes,
  deleteTotpAndRecoveryCodes,
  findTotpCredential,
  replaceRecoveryCodes,
} from '../login/local/credential-store.ts';
import { generateRecoveryCodes, recoveryCodeHash } from '../login/local/recovery-codes.ts';
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

export async function disableTotp(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  input: { password: string; code: string },
): Promise<SessionStart> {
  const id = session.identityId;
  if (!(await findTotpCredential(deps.sql, id))?.confirmed) throw new GatehouseError('totp_not_enrolled');
  await confirmFactors(deps, facts, id, { password: input.password, totp: input.code });
  const now = deps.clock();
  await deleteTotpAndRecoveryCodes(deps.sql, id);
  const revoked = await revokeIdentitySessions(deps.sql, id, now, session.id);
  await deps.audit.record({
    event: 'totp.disabled',
    actor: id,
    subject: id,
    ...facts,
    details: { sessions_revoked: revoked },
  });
  // One factor left: the caller's session is replaced by one that can only enroll a second factor again.
  return { identityId: id, aal: 'aal1', amr: ['pwd'], authTime: session.authTime, enrollmentOnly: true };
}

export async function regenerateRecoveryCodes(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
): Promise<string[]> {
  const id = session.identityId;
  if (session.aal !== 'aal2' || !(await findTotpCredential(deps.sql, id))?.confirmed)
    throw new GatehouseError('totp_not_enrolled');
  const codes = generateRecoveryCodes();
  await replaceRecoveryCodes(
    deps.sql,
    id,
    codes.map((code) => recoveryCodeHash(deps.secrets.recoveryPepper, id, code)),
  );
  await deps.audit.record({ event: 'recovery_codes.regenerated', actor: id, subject: id, ...facts });
  return codes;
}
