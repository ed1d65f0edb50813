// Password checks shared by sign-up, reset and change: the policy, then argon2id with the configured parameters.
import { argon2Parameters, hashPassword } from '../crypto/password-hash.ts';
import { assertPasswordAllowed, type PasswordField, type PasswordOwner } from '../login/local/password-policy.ts';
import type { AccountDeps } from './deps.ts';

export async function hashAllowedPassword(
  deps: AccountDeps,
  password: string,
  owner: PasswordOwner,
  field?: PasswordField,
): Promise<string> {
  await assertPasswordAllowed(password, deps.config, owner, field);
  return await hashPassword(password, deps.secrets.passwordPepper, argon2Parameters(deps.config.passwords));
}
