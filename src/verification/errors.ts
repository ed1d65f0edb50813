// The envelope a failed consumption becomes. The account routes throw this; the status and code are in the
// error catalogue (docs/decisions.md "Verification errors").
import { GatehouseError } from '../http/errors.ts';
import type { VerificationFailure } from './verification.ts';

const CODES = {
  invalid: 'verification_invalid',
  expired: 'verification_expired',
  attempts_exceeded: 'verification_attempts_exceeded',
} as const;

export function verificationError(reason: VerificationFailure): GatehouseError {
  return new GatehouseError(CODES[reason]);
}
