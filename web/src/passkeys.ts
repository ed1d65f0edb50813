// The passkey ceremonies as the pages run them: ask Gatehouse for options, hand them to the browser's WebAuthn API
// (through @simplewebauthn/browser, which converts base64url to buffers and back), then send the browser's answer.
import {
  browserSupportsWebAuthn,
  browserSupportsWebAuthnAutofill,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
  WebAuthnAbortService,
} from '@simplewebauthn/browser';
import { ApiError, api } from './api.ts';
import { t } from './i18n/i18n.ts';

export interface PasskeySignInResult {
  aal: string;
  amr: string[];
  enrollment_required: boolean;
  second_factor_required: boolean;
}

export const passkeysSupported = () => browserSupportsWebAuthn();

/** A refusal or cancellation in the browser's own dialog, shown like any other error (the envelope shape). */
function browserError(caught: unknown): ApiError {
  if (caught instanceof ApiError) return caught;
  const name = caught instanceof Error ? caught.name : '';
  const description =
    name === 'NotAllowedError' || name === 'AbortError'
      ? t('passkey.cancelled')
      : name === 'InvalidStateError'
        ? t('passkey.alreadyHere')
        : t('passkey.browserFailed', { reason: caught instanceof Error ? caught.message : String(caught) });
  return new ApiError(0, { error: 'passkey_cancelled', error_description: description, request_id: '' }, null);
}

/** Signs in with a passkey the person picks (no subject: any passkey of this site) or one of the subject's. */
export async function signInWithPasskey(subject?: string): Promise<PasskeySignInResult> {
  const started = await api<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }>(
    'POST',
    '/auth/passkey/options',
    subject ? { subject } : {},
  );
  let credential: Awaited<ReturnType<typeof startAuthentication>>;
  try {
    credential = await startAuthentication({ optionsJSON: started.options });
  } catch (caught) {
    throw browserError(caught);
  }
  return await api<PasskeySignInResult>('POST', '/auth/passkey/verify', {
    challenge_id: started.challenge_id,
    credential,
  });
}

/**
 * Browser autofill (conditional mediation): the username field offers this site's passkeys; picking one signs in.
 * Resolves when the person picked one, or null when the browser has no autofill or the wait was cancelled.
 */
export async function passkeyAutofill(): Promise<PasskeySignInResult | null> {
  if (!(await browserSupportsWebAuthnAutofill())) return null;
  const started = await api<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON }>(
    'POST',
    '/auth/passkey/options',
    {},
  );
  let credential: Awaited<ReturnType<typeof startAuthentication>>;
  try {
    credential = await startAuthentication({ optionsJSON: started.options, useBrowserAutofill: true });
  } catch {
    // Cancelled, e.g. because the person chose "Sign in with a passkey" or went on with a password.
    return null;
  }
  return await api<PasskeySignInResult>('POST', '/auth/passkey/verify', {
    challenge_id: started.challenge_id,
    credential,
  });
}

/** Stops a pending autofill request, so another ceremony (or none) can run. */
export const cancelPasskeyAutofill = () => WebAuthnAbortService.cancelCeremony();

/** Registers a new passkey; `password` only when the server asked for recent authentication. */
export async function addPasskey(name: string, password?: string): Promise<{ id: string; name: string }> {
  const started = await api<{ challenge_id: string; options: PublicKeyCredentialCreationOptionsJSON }>(
    'POST',
    '/account/passkeys/options',
    password ? { password } : {},
  );
  let credential: Awaited<ReturnType<typeof startRegistration>>;
  try {
    credential = await startRegistration({ optionsJSON: started.options });
  } catch (caught) {
    throw browserError(caught);
  }
  return await api('POST', '/account/passkeys', {
    challenge_id: started.challenge_id,
    ...(name.trim() ? { name: name.trim() } : {}),
    credential,
  });
}
