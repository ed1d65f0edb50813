// An organization with self-service off, in Chromium: /signup says sign-up is not open and how to turn it on instead
// of a form that can only fail; the owner invites a person from the console and, with no delivery configured, the
// one-use link is shown once; the invited person enrolls through it and their account page says what an
// administrator can do for them; the owner's reset link is shown once the same way.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { startConsoleApp } from '../helpers/console-app.ts';

const { t, owner } = await startConsoleApp();

describe('self-service off (Chromium)', () => {
  test('/signup says sign-up is not open here and how the operator turns it on, with no form', async () => {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const { page, problems, screenshot } = await newPage(viewport);
      await page.goto(`${t.url}/signup`);
      await page.getByRole('heading', { name: 'Sign-up is not open here', level: 1 }).waitFor();
      await page.getByText('Ask one to invite you').waitFor();
      await page.getByText('self_service.enabled = true').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Create account' }).count(), 0, 'no form that would fail');
      assert.equal(await page.getByRole('link', { name: 'Sign in' }).getAttribute('href'), '/signin');
      await screenshot(`signup-closed-${name}`);
      assert.deepEqual(problems, []);
    }
  });

  test('/forgot-password says an administrator can send a new enrollment link, with no form', async () => {
    const { page, problems, screenshot } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/forgot-password`);
    await page.getByText('Password reset by email is not available here.').waitFor();
    await page.getByText('self_service.enabled = true').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send reset link' }).count(), 0, 'no form that would fail');
    await screenshot('forgot-password-self-service-off-phone');
    assert.deepEqual(problems, []);
  });

  test('an invited person enrolls through the link shown once, and their account page says what an administrator can do', async () => {
    const { page, problems, screenshot } = await newPage({ width: 1280, height: 900 });
    await signInThrough(t, page, '/admin/console/identities', owner);
    problems.splice(0); // the signed-out visit answered 401; from here on nothing may fail
    const form = page.getByRole('region', { name: 'Invite a person' });
    await form.getByLabel('Email address').fill('dorothy@acme-robotics.dev');
    await form.getByLabel('Name (optional)').fill('Dorothy Vaughan');
    await form.getByRole('button', { name: 'Invite' }).click();
    await form.getByRole('heading', { name: 'Enrollment link for dorothy@acme-robotics.dev' }).waitFor();
    await form.getByText('Message delivery is not configured, so pass this link on yourself').waitFor();
    const link = (await form.getByTestId('enrollment-link').textContent()) ?? '';
    assert.match(link, /^http:\/\/127\.0\.0\.1:\d+\/enroll\?return_to=%2Fsettings#token=[\w-]{43}$/);
    await screenshot('console-invite-link-shown-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot('console-invite-link-shown-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    const [member] = await t.sql<{ roles: string[] }[]>`
      select m.roles from memberships m join emails e on e.identity_id = m.identity_id
      where e.address = 'dorothy@acme-robotics.dev' and m.organization_id = 'acme'`;
    assert.deepEqual(member?.roles, ['member'], 'the default role in the form is member');

    const invited = await newPage({ width: 390, height: 844 });
    await invited.page.goto(link);
    await invited.page.getByLabel('New password').fill('human computer passphrase 1943');
    await invited.page.getByLabel('Repeat the password').fill('human computer passphrase 1943');
    await invited.page.getByRole('button', { name: 'Set password' }).click();
    const secret = (await invited.page.getByTestId('totp-secret').textContent()) ?? '';
    t.clock.advance(30);
    await invited.page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
    await invited.page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await invited.page.getByRole('button', { name: 'I have saved them' }).click();
    await invited.page.waitForURL(`${t.url}/settings`);
    await invited.page.getByRole('heading', { name: 'Managed by an administrator' }).waitFor();
    await invited.page.getByText('send you a new enrollment link').waitFor();
    await invited.page.getByText('sign you out everywhere').waitFor();
    await invited.page.getByText('self_service.enabled = true').waitFor();
    assert.equal(await invited.page.getByRole('alert').count(), 0, 'no refused self-service call on the page');
    await invited.screenshot('settings-self-service-off-phone');
    await invited.page.setViewportSize({ width: 1280, height: 800 });
    await invited.screenshot('settings-self-service-off-desktop');
    assert.deepEqual(invited.problems, []);
    await invited.page.getByRole('button', { name: 'Sign out' }).click();
    await invited.page.waitForURL(/\/signin$/);

    // The owner's reset for this person: a new link, shown once.
    await page.goto(`${t.url}/admin/console/identities?q=dorothy`);
    await page.getByRole('link', { name: 'Dorothy Vaughan' }).click();
    await page.getByRole('button', { name: 'Send a new enrollment link' }).click();
    const reset = (await page.getByTestId('reset-link').textContent()) ?? '';
    assert.match(reset, /\/enroll\?return_to=%2Fsettings#token=[\w-]{43}$/);
    assert.notEqual(reset, link);
    await screenshot('console-reset-link-shown-desktop');
    assert.deepEqual(problems, []);
  });
});
