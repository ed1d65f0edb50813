// Passkeys in Chromium with the DevTools virtual authenticator (CTAP2, internal transport, resident keys, user
// verification): real WebAuthn ceremonies between the hosted pages and the server. Registered after a password
// sign-in, used to sign in with and without a subject, to finish an OAuth authorization, and removed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { makeAccount } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserRelyingParty } from '../helpers/browser-relying-party.ts';

import {
  signInWithPassword,
  startPasskeyBrowserApp,
  withAuthenticator,
  withoutPasskeyAutofill,
} from '../helpers/passkey-browser.ts';

const t = await startPasskeyBrowserApp();

/**
 * Leaves the current page for a blank one, then drops every cookie. A page left open would notice its session gone
 * (the settings page asks the API) and send the browser to sign-in, interrupting the next test's navigation.
 */
async function signedOutBlank(page: Page) {
  await page.goto('about:blank');
  await page.context().clearCookies();
}

const latestSession = async (sub: string) =>
  (
    await t.sql<{ aal: string; amr: string[]; pending_step: string | null }[]>`
      select aal, amr, pending_step from sessions where identity_id = ${sub} and revoked_at is null
      order by created_at desc limit 1`
  )[0];

const person = await makeAccount(t.sql, t.secrets, t.config, { email: 'mae.jemison@acme-robotics.dev' });
const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
const authenticator = await withAuthenticator(page);

describe('passkeys in the hosted pages (Chromium virtual authenticator)', () => {
  test('after a password sign-in offers a passkey, registers it, and lists it on the account page', async () => {
    await signInWithPassword(t, page, person);
    await page.getByRole('heading', { name: 'Add a passkey?' }).waitFor();
    await screenshot('passkey-offer-after-password');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${t.url}/settings`);
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByText('Passkey', { exact: true }).waitFor();
    await section.getByRole('button', { name: 'Rename' }).click();
    await section.getByLabel('New name').fill('Mae’s laptop');
    await section.getByRole('button', { name: 'Save name' }).click();
    await section.getByText('Mae’s laptop', { exact: true }).waitFor();
    await screenshot('passkey-settings-listed');
    const [held] = await authenticator.credentials();
    assert.equal(held?.isResidentCredential, true, 'a discoverable credential, as residentKey preferred asks');
    const [stored] = await t.sql`select credential_id from passkey_credentials where identity_id = ${person.sub}`;
    assert.equal(stored?.credential_id, Buffer.from(held?.credentialId ?? '', 'base64').toString('base64url'));
    assert.deepEqual(problems, []);
  });

  test('signs out, then signs in through autofill: the email field offers the passkey and picking it signs in', async () => {
    // The sign-in page that signing out lands on starts a conditional-mediation request at once; the virtual
    // authenticator answers it as a person picking the passkey from the email field's suggestions would, and the page
    // goes on to the account page. No button is pressed. (Visiting /signin again here raced that page's own ceremony,
    // and timed out once in CI.) The navigation is caught as an event: it may be over before a wait could start.
    const signInPage = page.waitForEvent(
      'framenavigated',
      (frame) => frame === page.mainFrame() && new URL(frame.url()).pathname === '/signin',
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signInPage;
    await page.waitForURL(`${t.url}/settings`);
    await page.getByRole('region', { name: 'Passkeys' }).getByText('Mae’s laptop', { exact: true }).waitFor();
    assert.deepEqual(await latestSession(person.sub), { aal: 'aal2', amr: ['hwk', 'user'], pending_step: null });
    assert.deepEqual(problems, []);
  });

  test('in a browser without autofill, signs in usernameless with "Sign in with a passkey" at aal2', async () => {
    // From here on the page reports no conditional mediation, so only the button can start a ceremony.
    await withoutPasskeyAutofill(page);
    await signedOutBlank(page);
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    assert.equal(await page.getByLabel('Email address').getAttribute('autocomplete'), 'username webauthn');
    await screenshot('passkey-signin-page');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${t.url}/settings`);
    assert.deepEqual(await latestSession(person.sub), { aal: 'aal2', amr: ['hwk', 'user'], pending_step: null });
    assert.deepEqual(problems, []);
  });
  test('finishes an OAuth authorization with the passkey: the relying party receives a code', async () => {
    const { redirectUri, callbacks, authorizeUrl } = await startBrowserRelyingParty(t);
    await signedOutBlank(page);
    await page.goto(authorizeUrl('passkey-state-1'));
    await page.waitForURL(/\/signin\?return_to=/);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    // The address the browser landed on is what the relying party reads: wait for it rather than for a heading.
    await page.waitForURL((url) => url.href.startsWith(redirectUri));
    await page.getByRole('heading', { name: 'Signed in', exact: true }).waitFor();
    const callback = new URL(page.url());
    assert.equal(callback.searchParams.get('state'), 'passkey-state-1');
    assert.match(callback.searchParams.get('code') ?? '', /^[A-Za-z0-9_-]{20,}$/);
    assert.ok(callbacks.some((seen) => seen.searchParams.get('code') === callback.searchParams.get('code')));
    const [grant] = await t.sql`select amr, acr from oauth_authorization_codes order by created_at desc limit 1`;
    assert.deepEqual(grant?.amr, ['hwk', 'user']);
    assert.deepEqual(problems, []);
  });

  test('removes the passkey while the password remains', async () => {
    await signedOutBlank(page);
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.waitForURL(`${t.url}/settings`);
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByRole('button', { name: 'Remove Mae’s laptop' }).click();
    await section.getByText('Passkey removed.').waitFor();
    const [count] = await t.sql`select count(*)::int as n from passkey_credentials where identity_id = ${person.sub}`;
    assert.equal(count?.n, 0);
    assert.deepEqual(problems, []);
  });

  test('refuses to remove a passkey that is the last way to sign in, and says why', async () => {
    const lone = await makeAccount(t.sql, t.secrets, t.config, { email: 'guion.bluford@acme-robotics.dev' });
    await signedOutBlank(page);
    await signInWithPassword(t, page, lone);
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(`${t.url}/settings`);
    // The password goes, so the passkey is all that is left.
    await t.sql`delete from sign_in_methods where identity_id = ${lone.sub} and kind = 'password'`;
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByRole('button', { name: 'Remove Passkey' }).click();
    await section.getByText('The last sign-in method of an account cannot be removed.').waitFor();
    await screenshot('passkey-last-method-refused');
    const [count] = await t.sql`select count(*)::int as n from passkey_credentials where identity_id = ${lone.sub}`;
    assert.equal(count?.n, 1);
    assert.deepEqual(problems, []);
  });

  test('offers a passkey when the sign-in ends before the page has heard which sign-in methods there are', async () => {
    const quick = await makeAccount(t.sql, t.secrets, t.config, { email: 'ellen.ochoa@acme-robotics.dev' });
    await signedOutBlank(page);
    // The page's GET /auth/providers is held until the sign-in is over, as a slow answer and an autofilled password
    // would have it; a second request (the page asking again) goes through.
    let release = () => {};
    let held = false;
    await page.route('**/auth/providers', async (route) => {
      if (held) return route.continue();
      held = true;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      await route.continue().catch(() => {});
    });
    try {
      await signInWithPassword(t, page, quick);
      const offer = page.getByRole('heading', { name: 'Add a passkey?' });
      // Either the offer or, without it, the settings page: whichever comes first says which happened.
      await Promise.race([offer.waitFor(), page.waitForURL(`${t.url}/settings`)]);
      assert.equal(await offer.isVisible(), true, 'the passkey offer, not straight to the settings page');
      assert.equal(held, true, 'the first GET /auth/providers was held');
    } finally {
      release();
      await page.unroute('**/auth/providers');
    }
    assert.deepEqual(problems, []);
  });
});
