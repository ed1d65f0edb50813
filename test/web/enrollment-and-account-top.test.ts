// Enrollment and the account page in Chromium at 1280 and 390 px: the owner's enrollment page names the account and
// prints the TOTP key in groups of four; reloading /enroll after enrolling says enrollment is done and offers the
// way on (with the truth about the recovery codes) instead of a red box; the account page opens with an index of its
// sections and "Sign out"; and each "Remove" button is named for its method ("Remove Passkey", not "Passkey Passkey
// Remove").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ensureBootstrap } from '../../src/identity/bootstrap.ts';
import { issueEnrollmentLink } from '../../src/login/local/enrollment-link.ts';
import { makeAccount, totpCode } from '../helpers/accounts.ts';
import { newPage } from '../helpers/browser.ts';
import { startBrowserApp } from '../helpers/browser-app.ts';
import { signInThrough } from '../helpers/browser-sign-in.ts';
import { makeConfig } from '../helpers/config.ts';
import { overflowAt, saveScreenshot } from '../helpers/screenshot-folder.ts';

const OWNER = 'owner@acme-robotics.dev';
const t = await startBrowserApp(
  makeConfig({
    organization: { id: 'acme', name: 'Acme', owner_subject: OWNER },
    self_service: { enabled: true },
    delivery: { kind: 'dev_mailbox' },
  }),
);
const installation = await ensureBootstrap(t.sql, {
  organizationId: 'acme',
  organizationName: 'Acme',
  ownerSubject: OWNER,
});

const WIDTHS = [
  { tag: 'desktop', viewport: { width: 1280, height: 900 } },
  { tag: 'phone', viewport: { width: 390, height: 844 } },
] as const;

describe('enrollment (Chromium)', () => {
  // One after the other: each link resets the owner's credentials, which is what a second link is for.
  for (const { tag, viewport } of WIDTHS)
    test(`at ${viewport.width} px the page names the account, groups the key, and a reload after enrolling says it is done`, async () => {
      const { page, problems } = await newPage(viewport);
      const link = await issueEnrollmentLink(t.sql, installation.ownerId, t.config.server.issuer, t.clock.now());
      const password = `the owner keeps a long passphrase ${tag}`;
      await page.goto(link.url);
      await page.getByLabel('New password').waitFor();
      await page.getByText(`For the account ${OWNER}`).waitFor();
      await saveScreenshot(page, `enroll-password-${tag}`);
      await page.getByLabel('New password').fill(password);
      await page.getByLabel('Repeat the password').fill(password);
      await page.getByRole('button', { name: 'Set password' }).click();

      const key = page.getByTestId('totp-secret');
      await key.waitFor();
      await page.getByText(`For the account ${OWNER}`).waitFor();
      const groups = await key.locator('span').allTextContents();
      assert.equal(groups.length, 8, 'a 32-character key is eight groups');
      for (const group of groups) assert.match(group, /^[A-Z2-7]{4}$/);
      const secret = (await key.textContent()) ?? '';
      assert.equal(secret, groups.join(''), 'the key copies without spaces');
      assert.ok(
        await key.evaluate((element) => {
          const [first, second] = [...element.querySelectorAll('span')].map((s) => s.getBoundingClientRect());
          return first && second ? second.left - first.right >= 4 || second.top > first.top : false;
        }),
        'a visible gap between groups',
      );
      await saveScreenshot(page, `enroll-totp-${tag}`);
      t.clock.advance(30);
      await page.getByLabel('Code from the app').fill(totpCode(secret, t.clock.now()));
      await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
      await page.getByTestId('recovery-codes').waitFor();

      // The codes were on this address once; a reload must neither show a bare error nor pretend to show them again.
      await page.reload();
      await page.getByRole('heading', { name: 'Two-factor sign-in is set up', level: 1 }).waitFor();
      const done = page.getByTestId('enrollment-done');
      await done.getByText('This account already has an authenticator app').waitFor();
      await done.getByText('Your recovery codes were shown once').waitFor();
      await done.getByText('make new ones on your account page').waitFor();
      assert.equal(await page.getByRole('alert').count(), 0, 'no error box');
      assert.equal(await page.getByTestId('recovery-codes').count(), 0);
      assert.equal(await done.getByRole('link', { name: 'Continue' }).getAttribute('href'), '/admin/console');
      assert.equal(
        await done.getByRole('link', { name: 'Go to your account page' }).getAttribute('href'),
        '/settings#totp-heading',
      );
      const overflow = await overflowAt(page, viewport.width);
      assert.ok(overflow.page <= viewport.width, `page is ${overflow.page} px wide: ${overflow.wide.join(', ')}`);
      await saveScreenshot(page, `enroll-reloaded-${tag}`);
      await done.getByRole('link', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
      assert.deepEqual(problems, []);
    });

  test('a dead link says so before a password is typed', async () => {
    const { page } = await newPage({ width: 390, height: 844 });
    await page.goto(`${t.url}/enroll#token=${'x'.repeat(43)}`);
    await page.getByRole('alert').getByText('The enrollment link is invalid, expired or already used.').waitFor();
  });
});

describe('account page top (Chromium)', () => {
  for (const { tag, viewport } of WIDTHS)
    test(`at ${viewport.width} px it starts with an index of its sections and Sign out, and names each Remove button`, async () => {
      const person = await makeAccount(t.sql, t.secrets, t.config, { email: `dana-${tag}@acme-robotics.dev` });
      // A passkey still called by its default name, as the list once read "Passkey Passkey Remove".
      await t.sql`insert into sign_in_methods (identity_id, kind, provider, external_subject, label)
                  values (${person.sub}, 'passkey', 'webauthn', ${`credential-${tag}`}, 'Passkey')`;
      const { page, problems } = await newPage(viewport);
      await signInThrough(t, page, '/settings', person);
      problems.splice(0);
      const index = page.getByRole('navigation', { name: 'On this page' });
      await index.waitFor();
      assert.deepEqual(await index.getByRole('link').allTextContents(), [
        'Profile',
        'Language',
        'Email address',
        'Password',
        'Two-factor sign-in',
        'Passkeys',
        'Where you are signed in',
        'Applications with access',
        'Ways to sign in',
      ]);
      const signOut = page.getByRole('button', { name: 'Sign out', exact: true });
      assert.equal(await signOut.count(), 1, 'one Sign out, at the top');
      const top = (await signOut.boundingBox())?.y ?? Number.POSITIVE_INFINITY;
      assert.ok(top < viewport.height, `Sign out is on the first screen (at ${top} px)`);
      const profile = (await page.getByRole('heading', { name: 'Profile', level: 2 }).boundingBox())?.y ?? 0;
      assert.ok(top < profile, 'above the first section');
      await saveScreenshot(page, `account-top-${tag}`);

      await index.getByRole('link', { name: 'Ways to sign in' }).click();
      await page.waitForURL(`${t.url}/settings#connections-heading`);
      const heading = page.getByRole('heading', { name: 'Ways to sign in', level: 2 });
      assert.ok(await heading.evaluate((h) => h.getBoundingClientRect().top < innerHeight), 'the section is in view');
      const ways = page.locator('ul.connections');
      await ways.getByRole('button', { name: 'Remove Passkey', exact: true }).waitFor();
      await ways.getByRole('button', { name: `Remove Password (${person.email})`, exact: true }).waitFor();
      assert.doesNotMatch((await ways.textContent()) ?? '', /Passkey\s*Passkey/);
      await saveScreenshot(page, `account-ways-to-sign-in-${tag}`);

      await signOut.click();
      await page.waitForURL(`${t.url}/signin`);
      assert.equal(await page.evaluate(async () => (await fetch('/account/profile')).status), 401);
      assert.deepEqual(problems, []);
    });
});
