// Which second factors an identity holds: a confirmed TOTP authenticator (with its recovery codes) or a passkey.
// Every registered passkey counts: registration requires user verification (src/login/passkey/registration.ts), so
// each can give the UV assertion that makes it a second factor (DESIGN.md "Assurance").
import type { Executor } from '../../db/pool.ts';
import type { Sub } from '../../identity/ids.ts';
import { countUnusedRecoveryCodes, findTotpCredential } from '../local/credential-store.ts';
import { listPasskeys } from '../passkey/store.ts';

export type SecondFactorKind = 'totp' | 'recovery_code' | 'passkey';

export async function listSecondFactors(sql: Executor, identityId: Sub): Promise<SecondFactorKind[]> {
  const [totp, recoveryCodes, passkeys] = await Promise.all([
    findTotpCredential(sql, identityId),
    countUnusedRecoveryCodes(sql, identityId),
    listPasskeys(sql, identityId),
  ]);
  const kinds: SecondFactorKind[] = [];
  if (totp?.confirmed) kinds.push('totp');
  if (totp?.confirmed && recoveryCodes > 0) kinds.push('recovery_code');
  if (passkeys.length > 0) kinds.push('passkey');
  return kinds;
}
