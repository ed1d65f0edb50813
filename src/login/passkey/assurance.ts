// What a verified passkey assertion proves, as session assurance (DESIGN.md "Assurance") and RFC 8176 `amr` values.
// docs/decisions.md "Passkey assurance" says why.
import type { Aal } from '../../session/types.ts';

export interface PasskeyAssurance {
  aal: Aal;
  amr: string[];
}

/**
 * User verification (WebAuthn §6.1 flag UV: a PIN or biometric checked by the authenticator) makes the passkey two
 * factors, something held and something known or been: aal2. Without it, only possession was shown: aal1.
 * A backup-eligible credential (§6.1.3 flag BE: a synced passkey) can leave the device it was made on, so the key is
 * software-protected ("swk"); a device-bound one (security key, platform TPM or secure enclave) is "hwk".
 */
export function passkeyAssurance(userVerified: boolean, backupEligible: boolean): PasskeyAssurance {
  const key = backupEligible ? 'swk' : 'hwk';
  return userVerified ? { aal: 'aal2', amr: [key, 'user'] } : { aal: 'aal1', amr: [key] };
}
