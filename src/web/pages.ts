// The paths the web UI (web/, built to web/dist) renders. Each is answered with the same index.html; the client-side
// router picks the page. API paths never appear here.
export const PAGE_PATHS = [
  '/',
  '/signin',
  '/enroll',
  '/second-factor',
  '/signup',
  '/forgot-password',
  '/settings',
  // RFC 8628 §3.3: where a person approves a device's sign-in (src/oauth/device-routes.ts is its API).
  '/device',
  // The pages behind verification links: GET renders the page, POST to the same path is the API it calls.
  '/account/email/verify',
  '/account/email/change/verify',
  '/account/password/reset',
  '/admin/console',
  '/admin/console/*',
] as const;

/** CSP for UI pages: our own scripts and styles only, no inline code, no other origin, no framing. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');
