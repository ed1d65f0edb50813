// The "Add a passkey?" offer after a password sign-in. Never between a sign-in and the redirect back to an app: the
// app is waiting, and the account page offers passkeys anyway. Once someone answers "Not now", this browser keeps the
// answer (localStorage: a hint for the page, never sent to the server). A passkey usually lives on the device, so
// "not on this device" is the answer given (docs/decisions.md).
const KEY = 'gatehouse.passkey_offer';

/**
 * A return into the OAuth endpoints (an authorization request, say) goes back to an application; so does a return to
 * /device, where a device waits for the person's approval (RFC 8628).
 */
export const returnsToApplication = (returnTo: string) => {
  const path = new URL(returnTo, location.origin).pathname;
  return path.startsWith('/oauth/') || path === '/device';
};

export const offerDismissed = () => localStorage.getItem(KEY) === 'dismissed';

export const dismissOffer = () => localStorage.setItem(KEY, 'dismissed');
