// Password checks shared by sign-up, reset and change: the policy, then argon2id with the configured parameters.
import { argon2Parameters, hashPassword } from '../crypto/password-hash.ts';
import { assertPasswordAllowed } from '../login/local/password-policy.ts';
import type { AccountDeps } from './deps.ts';

export async function hashAllowedPassword(deps: AccountDeps, password: string, subject: string): Promise<string> {
  const rules = deps.config.passwords;
  assertPasswordAllowed(password, { minLength: rules.min_length, maxLength: rules.max_length }, subject);
  return await hashPassword(password, deps.secrets.passwordPepper, argon2Parameters(rules));
}
