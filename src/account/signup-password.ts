// Which password a verified sign-up keeps (DESIGN.md: "An unverified address gives nobody control"). Anyone can sign
// up with any address, so the password stored with a pending sign-up may be someone else's, and the emailed link
// proves only the mailbox. The account therefore keeps a password only when the link holder shows it:
// - `password`: the one chosen at sign-up, typed again; it must match, or nothing happens (signup_password_mismatch);
// - `new_password`: the link holder's own choice, replacing the sign-up's (the way out when the sign-up was not theirs);
// - neither (the bare SPEC request): the account is activated with no password anyone knows; the person sets one
//   with a password reset, which proves the mailbox again.
import { argon2Parameters, hashPassword, verifyPassword } from '../crypto/password-hash.ts';
import { randomToken } from '../crypto/primitives.ts';
import { InvalidRequest } from '../http/errors.ts';
import type { Sub } from '../identity/ids.ts';
import { findIdentity } from '../identity/store.ts';
import { findPasswordLogin } from '../login/local/credential-store.ts';
import type { AccountDeps } from './deps.ts';
import { hashAllowedPassword } from './password.ts';

export interface SignupProof {
  password?: string | undefined;
  newPassword?: string | undefined;
}

/** What the activation does with the password: keep the sign-up's, or store `phc` in its place. */
export type SignupPassword =
  | { outcome: 'confirmed' }
  | { outcome: 'mismatch' }
  | { outcome: 'chosen'; phc: string }
  | { outcome: 'unset'; phc: string };

const NEW_PASSWORD_FIELD = { path: 'body.new_password', label: 'New password' };

/**
 * Decides before the link is used (argon2 takes tens of milliseconds; no row lock is held meanwhile), so a refused
 * new password leaves the link working. `pending` is the sign-up the verification names, null when it names none
 * (the consumption then fails on its own).
 */
export async function decideSignupPassword(
  deps: AccountDeps,
  pending: { identityId: Sub; email: string } | null,
  proof: SignupProof,
): Promise<SignupPassword> {
  if (proof.password !== undefined && proof.newPassword !== undefined) {
    const problem = { path: 'body.new_password', problem: 'Send either password or new_password, not both.' };
    throw new InvalidRequest(problem.problem, { fields: [problem] });
  }
  const pepper = deps.secrets.passwordPepper;
  const parameters = argon2Parameters(deps.config.passwords);
  if (proof.newPassword !== undefined) {
    const displayName = pending ? (await findIdentity(deps.sql, pending.identityId))?.displayName : undefined;
    const owner = { email: pending?.email ?? '', displayName };
    return { outcome: 'chosen', phc: await hashAllowedPassword(deps, proof.newPassword, owner, NEW_PASSWORD_FIELD) };
  }
  if (proof.password === undefined)
    return { outcome: 'unset', phc: await hashPassword(randomToken(), pepper, parameters) };
  const login = pending ? await findPasswordLogin(deps.sql, pending.identityId) : null;
  if (!login) return { outcome: 'mismatch' };
  const check = await verifyPassword(proof.password, login.phc, pepper, parameters);
  return check.ok ? { outcome: 'confirmed' } : { outcome: 'mismatch' };
}
