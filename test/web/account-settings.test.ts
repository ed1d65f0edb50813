// The account page for a person signed in without an authenticator (a session at aal1 that is not limited to
// enrollment, as other sign-in methods will make): the TOTP section leads to enrollment and back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeAccount, sessionCookieFor, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { makeConfig } from '../helpers/config.ts';

// Account pages need self-service with delivery configured; nothing here sends a message.
const t = await startBrowserApp(
  makeConfig({
    self_service: { enabled: true },
    delivery: {
      kind: 'smtp',
      from: 'id@acme-robotics.dev',
      smtp: { host: 'smtp.acme-robotics.dev', username: 'u', password_file: '/etc/gatehouse/secrets/smtp-password' },
    },
  }),
);

describe('GET /settings: two-factor sign-in section (Chromium)', () => {
  test('without an authenticator, links to /enroll?return_to=/settings, which sets one up and comes back', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config, { totp: false });
    const cookie = await sessionCookieFor(t.sql, account.sub, { aal: 'aal1', now: t.clock.now() });
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    const [name = '', value = ''] = cookie.split('=');
    await page.context().addCookies([{ name, value, url: t.url }]);

    await page.goto(`${t.url}/settings`);
    const section = page.getByRole('region', { name: 'Two-factor sign-in' });
    await section.getByText('No authenticator app is set up.').waitFor();
    const setUp = section.getByRole('link', { name: 'Set up an authenticator app' });
    assert.equal(await setUp.getAttribute('href'), '/enroll?return_to=%2Fsettings');
    await setUp.click();

    const secret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    t.clock.advance(30);
    await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.waitForURL(`${t.url}/settings`);
    await section.getByText('An authenticator app is set up. 10 unused recovery codes left.').waitFor();
    await screenshot('settings-totp-enrolled');
    assert.deepEqual(problems, []);
  });

  test('new recovery codes ask for the password and a current code; a wrong code is refused and changes nothing', async () => {
    const account = await makeAccount(t.sql, t.secrets, t.config);
    const cookie = await sessionCookieFor(t.sql, account.sub, { aal: 'aal2', now: t.clock.now() });
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    const [name = '', value = ''] = cookie.split('=');
    await page.context().addCookies([{ name, value, url: t.url }]);

    await page.goto(`${t.url}/settings`);
    const section = page.getByRole('region', { name: 'Two-factor sign-in' });
    const form = section.getByRole('form', { name: 'Make new recovery codes' });
    await form.getByLabel('Current password').fill(account.password);
    await form.getByLabel('Current code').fill('000000');
    await form.getByRole('button', { name: 'Make new recovery codes' }).click();
    await section.getByRole('alert').getByText('The current password or code is not correct.').waitFor();
    await section.getByText('An authenticator app is set up. 10 unused recovery codes left.').waitFor();

    t.clock.advance(30);
    await form.getByLabel('Current code').fill(totpCode(account.totpSeed as string, t.clock.now()));
    await form.getByRole('button', { name: 'Make new recovery codes' }).click();
    await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor();
    const shown = await page.getByTestId('recovery-codes').locator('li').allTextContents();
    assert.equal(shown.length, 10);
    assert.ok(
      shown.every((code) => !account.recoveryCodes.includes(code)),
      'a new set, not the old one',
    );
    await screenshot('settings-new-recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await section.getByText('An authenticator app is set up. 10 unused recovery codes left.').waitFor();
    // The password field was cleared: nothing of the re-authentication stays on the page.
    assert.equal(await form.getByLabel('Current password').inputValue(), '');
    assert.deepEqual(problems, []);
  });
});
