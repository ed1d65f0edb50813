// Re-authentication for sensitive account changes (email change, password change, TOTP disable): the current
// password, and where asked the current TOTP code. Changes anyone can make, with or without a password (email change,
// removing a sign-in method), also take a recent sign-in with any method (confirmRecentOrPassword). Attempts share the sign-in throttle (per account and per IP), so
// a stolen session cannot be used to guess the password. Failures are 403, not 401: the session itself is fine.
import { argon2Parameters, verifyPassword } from '../crypto/password-hash.ts';
import { GatehouseError } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { findPasswordLogin, findTotpCredential, useTotpStep } from '../login/local/credential-store.ts';
import { admitAttempt, clearAttempts } from '../login/local/lockout.ts';
import { matchTotpStep, openTotpSeed } from '../login/local/totp.ts';
import { RECENT_SIGN_IN_SECONDS } from '../login/passkey/recent-authentication.ts';
import type { Session } from '../session/types.ts';
import type { AccountDeps, RequestFacts } from './deps.ts';

export async function confirmFactors(
  deps: AccountDeps,
  facts: RequestFacts,
  identityId: Sub,
  factors: { password: string; totp?: string },
): Promise<{ methodId: string }> {
  const now = deps.clock();
  const keys = { account: `reauth:${identityId}`, ip: facts.clientIp };
  const admission = await admitAttempt(deps.sql, deps.audit, facts, keys, now);
  const login = await findPasswordLogin(deps.sql, identityId);
  const password = login
    ? await verifyPassword(
        factors.password,
        login.phc,
        deps.secrets.passwordPepper,
        argon2Parameters(deps.config.passwords),
      )
    : null;
  let totpOk = true;
  if (factors.totp !== undefined) {
    const credential = await findTotpCredential(deps.sql, identityId);
    const step = credential?.confirmed
      ? matchTotpStep(openTotpSeed(deps.secrets.totp, identityId, credential.sealedSeed), factors.totp, now)
      : null;
    // A code is accepted once only, as at sign-in.
    totpOk = step !== null && (await useTotpStep(deps.sql, identityId, step));
  }
  if (!login || !password?.ok || !totpOk) {
    await deps.audit.record({ event: 'reauth.failed', actor: identityId, subject: identityId, ...facts });
    throw new GatehouseError('reauthentication_failed');
  }
  await clearAttempts(deps.sql, keys, now, admission);
  return { methodId: login.methodId };
}

/**
 * The current password when the request gives one, else a sign-in within RECENT_SIGN_IN_SECONDS. Someone without a
 * password (passkey, redirect provider, wallet, SAML) confirms it is them by signing in again with what they have,
 * which starts a fresh session; a session alone, such as a stolen cookie, is not enough.
 */
export async function confirmRecentOrPassword(
  deps: AccountDeps,
  facts: RequestFacts,
  session: Session,
  password: string | undefined,
): Promise<void> {
  if (password !== undefined) {
    await confirmFactors(deps, facts, session.identityId, { password });
    return;
  }
  if ((deps.clock().getTime() - session.authTime.getTime()) / 1000 > RECENT_SIGN_IN_SECONDS)
    throw new GatehouseError('reauthentication_required');
}
