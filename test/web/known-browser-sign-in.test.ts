// The device-cookie lockout as people meet it in Chromium: the owner's browser, which signed in before, signs in
// again through the hosted page while a stranger's browser has locked the account for unknown clients.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type Account, makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';

const t = await startBrowserApp(makeConfig());

async function submit(page: Page, password: string, code: string) {
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Authentication code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** The owner signs in with both factors and lands on the account page. */
async function signInAsOwner(page: Page, account: Account) {
  await openSignIn(page, account.email);
  t.clock.advance(30); // a fresh TOTP step
  await submit(page, account.password, totpCode(account.totpSeed as string, t.clock.now()));
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
}

async function openSignIn(page: Page, email: string) {
  await page.goto(`${t.url}/signin?return_to=%2Fsettings`);
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').waitFor();
}

describe('sign-in from a known browser while strangers guess (Chromium)', () => {
  test('the owner’s browser signs in again; a stranger’s browser is told to wait', async () => {
    const owner = await makeAccount(t.sql, t.secrets, t.config);
    const mine = await newPage();
    await signInAsOwner(mine.page, owner);
    await mine.page.getByRole('button', { name: 'Sign out' }).click();
    await mine.page.waitForURL(/\/signin/);
    const kept = (await mine.page.context().cookies()).map((c) => c.name);
    assert.ok(!kept.includes('gatehouse_session'), kept.join());

    const stranger = await newPage();
    await openSignIn(stranger.page, owner.email);
    const alert = stranger.page.getByRole('alert');
    /** One attempt on the stranger's page, waiting for its answer (the alert text repeats, so it cannot tell). */
    const attempt = async (password: string, code: string, shown: string) => {
      const answered = stranger.page.waitForResponse((r) => new URL(r.url()).pathname === '/auth/mfa/verify');
      await submit(stranger.page, password, code);
      await answered;
      await alert.getByText(shown).waitFor();
    };
    const wrong = 'The sign-in details are not correct.';
    for (let n = 0; n < 5; n += 1) await attempt(`a guess number ${n}`, '123456', wrong);
    // The lock of 30 s ends; one more wrong guess starts one of 60 s, which the owner's next sign-in falls in.
    t.clock.advance(30);
    await attempt('a guess number 5', '123456', wrong);
    const code = totpCode(owner.totpSeed as string, t.clock.now());
    await attempt(owner.password, code, 'Too many sign-in attempts; retry later.');
    await alert.getByText('Try again in about 60 seconds.').waitFor();

    await signInAsOwner(mine.page, owner);
    assert.ok(kept.includes('gatehouse_device'), 'signing out kept the device cookie');
    assert.deepEqual(mine.problems, []);
    assert.deepEqual(stranger.problems, []);
  });
});
