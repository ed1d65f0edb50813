/**
 * Verification links carry `verification_id` and `secret` in the URL fragment (never sent to a server). Read them,
 * then drop the fragment from the address bar and history so the secret does not linger on screen.
 */
export function takeVerificationFragment(): { verification_id: string; secret: string } | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const verification_id = params.get('verification_id');
  const secret = params.get('secret');
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  return verification_id && secret ? { verification_id, secret } : null;
}
