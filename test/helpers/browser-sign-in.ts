// Signing in through the hosted page, as a person does: the subject, then password and a fresh TOTP code.
import type { Page } from 'playwright-core';
import { type Account, totpCode } from './accounts.ts';
import type { TestApp } from './app.ts';

/** Opens `path`, is sent to sign-in (the 401 of a signed-out visit), signs in with both factors and comes back. */
export async function signInThrough(t: Pick<TestApp, 'url' | 'clock'>, page: Page, path: string, account: Account) {
  await page.goto(`${t.url}${path}`);
  await page.waitForURL(/\/signin\?return_to=/);
  await page.getByLabel('Email address').fill(account.email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(account.password);
  t.clock.advance(30); // a fresh TOTP step for every sign-in
  await page.getByLabel('Authentication code').fill(totpCode(account.totpSeed as string, t.clock.now()));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${t.url}${path}`);
}
