// What went wrong, in the page's language. The API's descriptions are English and often more specific (they name the
// field and the rule), so an English page shows them as they are; another language shows the catalogue's sentence for
// the error code, and the server's text only for a code the hosted pages are not expected to meet.
import type { ApiError } from '../api.ts';
import { type MessageKey, pageLocale, t } from './i18n.ts';

/** The codes a person can meet on the hosted pages (src/http/error-catalogue.ts). */
const ERROR_KEYS: Record<string, MessageKey> = {
  login_required: 'errorCode.login_required',
  enrollment_required: 'errorCode.enrollment_required',
  second_factor_required: 'errorCode.second_factor_required',
  user_verification_required: 'errorCode.user_verification_required',
  invalid_credentials: 'errorCode.invalid_credentials',
  invalid_login_transaction: 'errorCode.invalid_login_transaction',
  invalid_enrollment_token: 'errorCode.invalid_enrollment_token',
  weak_password: 'errorCode.weak_password',
  invalid_totp_code: 'errorCode.invalid_totp_code',
  totp_already_enrolled: 'errorCode.totp_already_enrolled',
  totp_enrollment_not_started: 'errorCode.totp_enrollment_not_started',
  method_conflict: 'errorCode.method_conflict',
  last_sign_in_method: 'errorCode.last_sign_in_method',
  provider_not_available: 'errorCode.provider_not_available',
  passkeys_disabled: 'errorCode.passkeys_disabled',
  invalid_passkey_registration: 'errorCode.invalid_passkey_registration',
  reauthentication_required: 'errorCode.reauthentication_required',
  reauthentication_failed: 'errorCode.reauthentication_failed',
  wallet_signature_invalid: 'errorCode.wallet_signature_invalid',
  wallet_message_invalid: 'errorCode.wallet_message_invalid',
  wallet_contract_unverifiable: 'errorCode.wallet_contract_unverifiable',
  farcaster_signature_invalid: 'errorCode.farcaster_signature_invalid',
  chain_unavailable: 'errorCode.chain_unavailable',
  farcaster_relay_unavailable: 'errorCode.farcaster_relay_unavailable',
  directory_unavailable: 'errorCode.directory_unavailable',
  self_service_disabled: 'errorCode.self_service_disabled',
  delivery_not_configured: 'errorCode.delivery_not_configured',
  email_taken: 'errorCode.email_taken',
  totp_not_enrolled: 'errorCode.totp_not_enrolled',
  verification_invalid: 'errorCode.verification_invalid',
  verification_expired: 'errorCode.verification_expired',
  verification_attempts_exceeded: 'errorCode.verification_attempts_exceeded',
  signup_password_mismatch: 'errorCode.signup_password_mismatch',
  invalid_user_code: 'errorCode.invalid_user_code',
  rate_limited: 'errorCode.rate_limited',
  invalid_request: 'errorCode.invalid_request',
  csrf_rejected: 'errorCode.csrf_rejected',
  server_error: 'errorCode.server_error',
  temporarily_unavailable: 'errorCode.temporarily_unavailable',
  not_ready: 'errorCode.not_ready',
};

export function errorMessage(error: ApiError): string {
  const key = ERROR_KEYS[error.code];
  return pageLocale() === 'en' || !key ? error.message : t(key);
}

/**
 * A field problem the server reported (English), for a page in another language: a weak password says so in words
 * the person reads; other problems keep the server's words, which name the rule exactly.
 */
export function fieldProblem(error: ApiError, problem: string): string {
  return pageLocale() !== 'en' && error.code === 'weak_password' ? t('errorCode.weak_password') : problem;
}
