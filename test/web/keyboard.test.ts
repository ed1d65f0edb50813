// Keyboard only, in Chromium: sign in at /signin without a mouse (Tab order and Enter), then use the console's skip
// link, which must be the first stop and must move focus to the main content.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startConsoleApp } from '../helpers/console-app.ts';
import { assertFocused, focusedElement } from '../helpers/focus.ts';

const { t, owner } = await startConsoleApp();

describe('keyboard use of /signin and the console (Chromium)', () => {
  test('Tab moves from the email field to Continue, then through password, code and Sign in; Enter submits each step', async () => {
    const { page, problems, screenshot } = await newPage({ width: 1024, height: 768 });
    await page.goto(`${t.url}/signin?return_to=%2Fadmin%2Fconsole`);
    const email = page.getByLabel('Email address');
    await assertFocused(page, email, 'the email field, on arrival');
    await page.keyboard.type(owner.email);
    await page.keyboard.press('Tab');
    await assertFocused(page, page.getByRole('button', { name: 'Continue' }), 'Continue');
    await page.keyboard.press('Shift+Tab');
    await assertFocused(page, email, 'the email field again');
    await page.keyboard.press('Enter');

    const password = page.getByLabel('Password');
    await assertFocused(page, password, 'the password field, once the subject is accepted');
    await page.keyboard.type(owner.password);
    await page.keyboard.press('Tab');
    const code = page.getByLabel('Authentication code');
    await assertFocused(page, code, 'the code field');
    t.clock.advance(30);
    await page.keyboard.type(totpCode(owner.totpSeed as string, t.clock.now()));
    await page.keyboard.press('Tab');
    await assertFocused(page, page.getByRole('button', { name: 'Use a recovery code instead' }), 'the recovery switch');
    await page.keyboard.press('Tab');
    await assertFocused(page, page.getByRole('button', { name: 'Sign in' }), 'Sign in');
    // Back to the code, and Enter there submits the form as the button would.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await assertFocused(page, code, 'the code field again');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/admin/console`);
    await page.getByRole('heading', { name: 'Applications' }).waitFor();
    await screenshot('keyboard-signin');
    assert.deepEqual(problems, []);
  });

  test('in the console, the first Tab reaches the skip link, and Enter on it moves focus to the main content', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/signin?return_to=%2Fadmin%2Fconsole%2Fclients`);
    await page.getByLabel('Email address').fill(owner.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Password').fill(owner.password);
    t.clock.advance(30);
    await page.getByLabel('Authentication code').fill(totpCode(owner.totpSeed as string, t.clock.now()));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'OAuth clients' }).waitFor();

    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await assertFocused(page, skip, 'the skip link');
    const box = await skip.boundingBox();
    assert.ok(box && box.x >= 0 && box.y >= 0, 'the focused skip link is on screen');
    await page.keyboard.press('Enter');
    await assertFocused(page, page.getByRole('main'), 'the main content');
    await page.keyboard.press('Tab');
    // On a phone the clients table scrolls sideways, so Chromium makes it the next stop; either way it is in main.
    assert.equal(
      await page.evaluate("document.activeElement?.closest('main')?.id"),
      'content',
      `the next Tab stays in the main content, not on "${await focusedElement(page)}"`,
    );
    await screenshot('keyboard-console-skip-link');
    assert.deepEqual(problems, []);
  });
});
