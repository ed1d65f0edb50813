// The sign-up confirmation page in Chromium when someone else signed up the same address after the person did
// (DESIGN.md "An unverified address gives nobody control"): the newest message is the other sign-up's, the page
// refuses the person's own password on it, and offers to confirm with a password of their choosing instead; the
// other sign-up's password never works.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { signIn } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { deliveryWorker, Inbox, startMailbox } from '../helpers/mailbox.ts';

const { smtp, config } = await startMailbox();
after(() => smtp.stop());
const t = await startBrowserApp(config);
const inbox = new Inbox(smtp, deliveryWorker(t.sql, t.config, t.secrets.delivery, t.clock.now, t.logs));

describe('hosted pages: confirming a sign-up someone else repeated (Chromium)', () => {
  test("the person's password is refused on the other sign-up's link; a password of their own confirms it", async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    const email = 'ruth@acme-robotics.dev';
    const own = 'a gardener keeps bees in april 77';
    const theirs = 'somebody else typed this 4419';

    await page.goto(`${t.url}/signup`);
    await page.getByLabel('Your name').fill('Ruth Teitelbaum');
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(own);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('status').getByText(`We sent a confirmation link to ${email}`).waitFor();
    await inbox.deliver(1);
    // Someone else signs up the same address with a password of their choosing.
    const other = await t.app.inject({
      method: 'POST',
      url: '/account/signup',
      headers: { 'content-type': 'application/json', origin: new URL(t.config.server.issuer).origin },
      payload: { email, password: theirs, display_name: 'Someone' },
    });
    assert.equal(other.statusCode, 201);
    const [newest] = await inbox.deliver(1);
    const link = /(http:\/\/\S+\/account\/email\/verify#\S+)/.exec(newest?.text ?? '')?.[1];
    assert.ok(link, 'the newest message carries a confirmation link');

    await page.goto(link);
    await page.getByLabel('Your password').fill(own);
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page
      .getByRole('alert')
      .getByText('This link belongs to a sign-up with another password.', { exact: false })
      .waitFor();
    await screenshot('signup-confirmation-mismatch');

    await page.getByRole('button', { name: 'This sign-up was not mine, or I forgot the password' }).click();
    await page.getByLabel('New password').fill(own);
    await page.getByRole('button', { name: 'Confirm and use this password' }).click();
    await page.getByRole('status').getByText('Your email address is confirmed.').waitFor();
    await screenshot('signup-confirmation-own-password');
    assert.deepEqual(problems, []);

    const sameOrigin = { headers: { origin: new URL(t.config.server.issuer).origin } };
    const signsIn = async (password: string) =>
      (await signIn(t.app, email, { password }, sameOrigin)).response.statusCode;
    assert.equal(await signsIn(own), 200, 'their own password works');
    assert.equal(await signsIn(theirs), 401, 'the other one does not');
  });
});
