// Checks the factors of one local sign-in attempt: the password always, then TOTP or a recovery code. The answer is
// only "which session, if any": callers never learn which factor failed. An unknown subject or an account without a
// password still costs one argon2id verification (against a dummy hash), so timing does not tell them apart.
import { argon2Parameters, hashPassword, verifyPassword } from '../../crypto/password-hash.ts';
import { randomToken } from '../../crypto/primitives.ts';
import type { Sub } from '../../identity/ids.ts';
import { touchSignInMethod } from '../../identity/store.ts';
import type { SessionStart } from '../../session/http.ts';
import {
  consumeRecoveryCode,
  findPasswordLogin,
  replacePasswordHash,
  type TotpCredential,
  useTotpStep,
} from './credential-store.ts';
import type { LocalLoginDeps } from './deps.ts';
import { recoveryCodeHash } from './recovery-codes.ts';
import { matchTotpStep, openTotpSeed } from './totp.ts';

export interface Factors {
  password: string;
  totp?: string | undefined;
  recoveryCode?: string | undefined;
}

/** What a successful check established; `factor` names the second factor for the audit record only. */
export type FactorOutcome = Omit<SessionStart, 'authTime'> & { factor: 'totp' | 'recovery_code' | 'none' };

export type FactorChecker = (identityId: Sub | null, factors: Factors, now: Date) => Promise<FactorOutcome | null>;

/** The argon2id calls sign-in makes; tests pass a counting wrapper to show that every path does the same work. */
export interface PasswordHasher {
  hash: typeof hashPassword;
  verify: typeof verifyPassword;
}

const ARGON2: PasswordHasher = { hash: hashPassword, verify: verifyPassword };

export function createFactorChecker(deps: LocalLoginDeps, hasher: PasswordHasher = ARGON2): FactorChecker {
  const params = argon2Parameters(deps.passwords);
  const pepper = deps.secrets.passwordPepper;
  let dummy: Promise<string> | null = null;
  const dummyHash = () => {
    dummy ??= hasher.hash(randomToken(), pepper, params);
    return dummy;
  };

  return async (identityId, factors, now) => {
    const login = identityId ? await findPasswordLogin(deps.sql, identityId) : null;
    const check = await hasher.verify(factors.password, login?.phc ?? (await dummyHash()), pepper, params);
    if (!identityId || !login || !check.ok || !login.active) return null;
    const second = await checkSecondFactor(deps, identityId, login.totp, factors, now);
    if (!second) return null;
    // Only after the whole sign-in succeeded: a right password with a wrong second factor must not cost a write
    // (or tell a guesser, through the slower answer, that the password was right).
    if (check.needsRehash)
      await replacePasswordHash(deps.sql, identityId, login.phc, await hasher.hash(factors.password, pepper, params));
    await touchSignInMethod(deps.sql, login.methodId, now);
    return second;
  };
}

export async function checkSecondFactor(
  deps: LocalLoginDeps,
  identityId: Sub,
  totp: TotpCredential | null,
  factors: Factors,
  now: Date,
): Promise<FactorOutcome | null> {
  // DESIGN.md "Local login without TOTP": the password alone only buys a session that can enroll TOTP (or, for an
  // identity with a passkey, one that waits for it: src/login/step-up/pending-step.ts).
  if (!totp?.confirmed) return { identityId, aal: 'aal1', amr: ['pwd'], pending: 'enrollment', factor: 'none' };
  const factor = await proveSecondFactor(deps, identityId, totp, factors, now);
  if (!factor) return null;
  return { identityId, aal: 'aal2', amr: ['pwd', 'otp'], pending: null, factor };
}

/**
 * A TOTP code (each time step once) or an unused recovery code, for an identity with a confirmed authenticator;
 * null when neither was sent or the one sent is wrong. RFC 8176 has no value for a recovery code; it is a one-time
 * password from a printed list, so both are "otp" to the caller.
 */
export async function proveSecondFactor(
  deps: Pick<LocalLoginDeps, 'sql' | 'secrets'>,
  identityId: Sub,
  totp: TotpCredential | null,
  factors: Pick<Factors, 'totp' | 'recoveryCode'>,
  now: Date,
): Promise<'totp' | 'recovery_code' | null> {
  if (!totp?.confirmed) return null;
  if (factors.totp !== undefined) {
    const step = matchTotpStep(openTotpSeed(deps.secrets.totp, identityId, totp.sealedSeed), factors.totp, now);
    return step !== null && (await useTotpStep(deps.sql, identityId, step)) ? 'totp' : null;
  }
  if (factors.recoveryCode !== undefined) {
    const hash = recoveryCodeHash(deps.secrets.recoveryPepper, identityId, factors.recoveryCode);
    return (await consumeRecoveryCode(deps.sql, identityId, hash, now)) ? 'recovery_code' : null;
  }
  return null;
}
