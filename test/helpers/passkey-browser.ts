// Passkeys in Chromium: the app the passkey browser tests share, the DevTools virtual authenticator, and the password
// sign-in through the hosted page that comes before a passkey exists.
import type { Page } from 'playwright-core';
import { totpCode } from './accounts.ts';
import type { TestApp } from './app.ts';
import { startBrowserApp } from './browser-app.ts';
import { makeConfig } from './config.ts';

/**
 * Account pages need self-service with delivery configured; nothing here sends a message. The issuer is
 * http://localhost:port: WebAuthn needs a domain as RP ID, and localhost is a secure context over plain HTTP.
 */
export function startPasskeyBrowserApp() {
  return startBrowserApp(
    makeConfig({
      organization: { name: 'Acme Robotics' },
      self_service: { enabled: true },
      delivery: {
        kind: 'smtp',
        from: 'id@acme-robotics.dev',
        smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
      },
    }),
    { issuerHost: 'localhost' },
  );
}

/** Gives the page a platform authenticator that holds discoverable credentials and always verifies the user. */
export async function withAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    /** Forgets every passkey: one held would answer the sign-in page's autofill request at once. */
    clear: () => cdp.send('WebAuthn.clearCredentials', { authenticatorId }),
  };
}

/**
 * From now on this page's browser reports no conditional mediation, so only "Sign in with a passkey" starts a
 * ceremony. With a passkey held, the sign-in page's autofill request is otherwise answered by the virtual
 * authenticator at once, and the page may leave before a click on the button lands.
 */
export async function withoutPasskeyAutofill(page: Page) {
  await page.addInitScript(() => {
    // Not on about:blank, which the tests pass through between pages and which has no WebAuthn.
    if (typeof PublicKeyCredential !== 'undefined')
      PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  });
}

/** Signs in with password and a fresh TOTP code on the sign-in page, going on to `returnTo`. */
export async function signInWithPassword(
  t: Pick<TestApp, 'url' | 'clock'>,
  page: Page,
  account: { email: string; password: string; totpSeed: string | null },
  returnTo = '/settings',
) {
  await page.goto(`${t.url}/signin?return_to=${encodeURIComponent(returnTo)}`);
  await page.getByLabel('Email address').fill(account.email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(account.password);
  t.clock.advance(30);
  await page.getByLabel('Authentication code').fill(totpCode(account.totpSeed as string, t.clock.now()));
  await page.getByRole('button', { name: 'Sign in' }).click();
}
