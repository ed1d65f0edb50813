// The ways back into an account, in Chromium: a new password through the link that arrived by SMTP, a spent or
// expired link and what the page offers instead, a recovery code in place of TOTP, and signing out.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { deliveryWorker, Inbox, startMailbox } from '../helpers/mailbox.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startBrowserApp(config);
const inbox = new Inbox(smtp, deliveryWorker(t.sql, t.config, t.secrets.delivery, t.clock.now, t.logs));

type Page = import('playwright-core').Page;

async function signIn(page: Page, email: string, password: string, code: string) {
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The link in a message, as the person would open it (the verification id and secret ride in the fragment). */
function linkIn(text: string, path: string): string {
  const link = new RegExp(`(https?://\\S+${path}#\\S+)`).exec(text)?.[1];
  assert.ok(link, `the message carries a ${path} link:\n${text}`);
  return link;
}

describe('hosted pages: getting back into an account (Chromium)', () => {
  test('forgot password: the emailed link sets a new password once, and the new password signs in', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config, { email: 'grace@acme-robotics.dev' });
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email address').fill(account.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page
      .getByRole('status')
      .getByText(`If an account uses ${account.email}, a reset link is on its way.`)
      .waitFor();

    const [mail] = await inbox.deliver(1);
    assert.deepEqual(mail?.to, [account.email]);
    const link = linkIn(mail?.text ?? '', '/account/password/reset');
    const fresh = 'a brand new harbour passphrase 31';
    await page.goto(link);
    assert.equal(new URL(page.url()).hash, '', 'the secret is dropped from the address bar');
    await page.getByLabel('New password').fill(fresh);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await page.getByRole('status').getByText('Your password was changed and every session was signed out.').waitFor();

    // The same link again: spent. The page says so with the envelope and offers a new link or sign-in.
    await page.goto('about:blank');
    await page.goto(link);
    await page.getByLabel('New password').fill('yet another harbour passphrase 32');
    await page.getByRole('button', { name: 'Set new password' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('The verification id or secret is not valid.').waitFor();
    assert.match((await alert.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
    assert.equal(await page.getByRole('link', { name: 'Request a new link' }).getAttribute('href'), '/forgot-password');
    assert.equal(await page.getByLabel('New password').count(), 0, 'the form is gone with the link');

    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    t.clock.advance(30);
    await signIn(page, account.email, fresh, totpCode(account.totpSeed ?? '', t.clock.now()));
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await screenshot('password-reset-then-signed-in');
    assert.deepEqual(problems, []);
  });

  test('an expired confirmation link shows the error with its request id and a way to a new link', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    const email = 'dorothy@acme-robotics.dev';
    await page.goto(`${t.url}/signup`);
    await page.getByLabel('Your name').fill('Dorothy Vaughan');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill('fortran compiler passphrase 1949');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').getByText(`We sent a confirmation link to ${email}`).waitFor();
    const [mail] = await inbox.deliver(1);
    const link = linkIn(mail?.text ?? '', '/account/email/verify');

    t.clock.advance(24 * 3600 + 60); // sign-up links last 24 hours
    await page.goto(link);
    await page.getByLabel('Your password').fill('fortran compiler passphrase 1949');
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    const alert = page.getByRole('alert');
    await alert.getByText('The verification has expired; request a new one.').waitFor();
    assert.match((await alert.textContent()) ?? '', /Request ID: [A-Za-z0-9_-]{16}/);
    await page.getByRole('link', { name: 'Sign up again for a new link' }).click();
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await screenshot('expired-confirmation-then-sign-up');
    assert.deepEqual(problems, []);
  });

  test('a recovery code signs in in place of the TOTP code, and works only once', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const [code = ''] = account.recoveryCodes;
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByLabel('Email address').fill(account.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByText('An authenticator app is set up. 9 unused recovery codes left.').waitFor();

    // Left for a blank page first: the open account page would notice the lost session and send itself to /signin,
    // racing the visit below (the same race interrupted the LDAP and console tests in CI).
    await page.goto('about:blank');
    await page.context().clearCookies();
    await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
    await page.getByLabel('Email address').fill(account.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(account.password);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The sign-in details are not correct.').waitFor();
    await screenshot('recovery-code-used-twice');
    assert.deepEqual(problems, []);
  });

  test('sign-out shows why when it fails, and ends the session when it works', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/settings`);
    await page.waitForURL(/\/signin\?return_to=%2Fsettings$/);
    t.clock.advance(30);
    await signIn(page, account.email, account.password, totpCode(account.totpSeed ?? '', t.clock.now()));
    await page.getByRole('heading', { name: 'Your account' }).waitFor();

    // The connection drops: the page stays, shows the error, and does not pretend the person is signed out.
    await page.route('**/auth/logout', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('alert').getByText('Gatehouse could not be reached.', { exact: false }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/settings');
    problems.splice(0); // Chromium reports the aborted request itself as a console error.

    await page.unroute('**/auth/logout');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${t.url}/signin`);
    const [session] = await t.sql<{ revoked: boolean }[]>`
      select count(*) filter (where revoked_at is null) = 0 as revoked from sessions
      where identity_id = ${account.sub}`;
    assert.equal(session?.revoked, true, 'the server ended the session');
    await page.goto(`${t.url}/settings`);
    await page.waitForURL(/\/signin\?return_to=%2Fsettings$/);
    await page.getByRole('button', { name: 'Continue' }).waitFor();
    await screenshot('signed-out');
    assert.deepEqual(problems, []);
  });

  test('/enroll without a session sends the browser to sign in and back', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/enroll?return_to=%2Fsettings`);
    await page.waitForURL(/\/signin\?return_to=%2Fsettings$/);
    await page.getByRole('button', { name: 'Continue' }).waitFor();
    await screenshot('enroll-signed-out');
    assert.deepEqual(problems, []);
  });
});
